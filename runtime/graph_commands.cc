// placeholder: filled in by the foundation work
#include "runtime/commands.h"
namespace superopt {
int graph_command(const std::vector<std::string>&) { return 2; }
}
