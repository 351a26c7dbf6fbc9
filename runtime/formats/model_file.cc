// Choosing the writer by extension and writing atomically.
#include "runtime/formats/model_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "runtime/core/error.h"
#include "runtime/formats/graph_json.h"
#include "runtime/formats/onnx_read.h"
#include "runtime/formats/onnx_write.h"

namespace superopt {

void write_model_file(const std::string& path, const Graph& g, const std::string& name,
                      const std::vector<std::string>& output_names) {
  const std::string bytes =
      is_onnx_path(path) ? onnx_model_bytes(g, output_names, name) : write_graph_json(g, name);
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(temp, std::ios::binary);
    if (!(f << bytes) || !f.flush()) {
      const std::string why = std::strerror(errno);
      std::remove(temp.c_str());
      throw Error("cannot write " + path + ": " + why);
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temp.c_str());
    throw Error("cannot write " + path + ": " + why);
  }
}

}  // namespace superopt
