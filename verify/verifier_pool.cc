// The master/worker protocol of the verifier pool (see verifier_pool.h).
// A worker sends [int32 rule or -1][uint8 status][double ms][double proof_ms][note]
// ['\0'][derivation text]['\0'][size family text] and receives the next rule
// index, or -1 when there is nothing left.
#include "verify/verifier_pool.h"

#include <mpi.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "runtime/db/rule_database.h"

namespace superopt::verify {
namespace {

constexpr int kTagResult = 41;
constexpr int kTagWork = 42;

std::string encode(int rule, const RuleVerdict& v) {
  std::string bytes(sizeof(int32_t) + 1 + 2 * sizeof(double), '\0');
  int32_t r = rule;
  std::memcpy(bytes.data(), &r, sizeof r);
  bytes[sizeof r] = static_cast<char>(v.status);
  std::memcpy(bytes.data() + sizeof r + 1, &v.ms, sizeof v.ms);
  std::memcpy(bytes.data() + sizeof r + 1 + sizeof v.ms, &v.proof_ms, sizeof v.proof_ms);
  return bytes + v.note + '\0' + derivation_text(v.derivation) + '\0' +
         (v.family ? size_family_text(*v.family) : std::string());
}

int decode(const std::string& bytes, RuleVerdict& v) {
  int32_t r;
  std::memcpy(&r, bytes.data(), sizeof r);
  v.status = static_cast<RuleStatus>(bytes[sizeof r]);
  std::memcpy(&v.ms, bytes.data() + sizeof r + 1, sizeof v.ms);
  std::memcpy(&v.proof_ms, bytes.data() + sizeof r + 1 + sizeof v.ms, sizeof v.proof_ms);
  const std::string rest = bytes.substr(sizeof r + 1 + sizeof v.ms + sizeof v.proof_ms);
  const size_t end_of_note = rest.find('\0');
  v.note = rest.substr(0, end_of_note);
  if (end_of_note == std::string::npos) return r;
  const std::string after_note = rest.substr(end_of_note + 1);
  const size_t end_of_derivation = after_note.find('\0');
  v.derivation = derivation_from_text(after_note.substr(0, end_of_derivation));
  if (end_of_derivation != std::string::npos && end_of_derivation + 1 < after_note.size())
    v.family = size_family_from_text(after_note.substr(end_of_derivation + 1));
  return r;
}

void serve(int workers, const std::vector<int>& todo,
           const std::function<void(int, const RuleVerdict&)>& record) {
  size_t next = 0;
  for (int active = workers; active > 0;) {
    // Polling with short sleeps: a blocking probe spins a core in Open MPI,
    // which on a node with one core per rank takes it from a worker.
    MPI_Status st;
    for (int arrived = 0;;) {
      MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &arrived, &st);
      if (arrived) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    int size = 0;
    MPI_Get_count(&st, MPI_CHAR, &size);
    std::string bytes(static_cast<size_t>(size), '\0');
    MPI_Recv(bytes.data(), size, MPI_CHAR, st.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    RuleVerdict v;
    if (int rule = decode(bytes, v); rule >= 0) record(rule, v);
    int32_t work = next < todo.size() ? todo[next++] : -1;
    if (work < 0) --active;
    MPI_Send(&work, 1, MPI_INT32_T, st.MPI_SOURCE, kTagWork, MPI_COMM_WORLD);
  }
}

void work(const std::function<RuleVerdict(int)>& verify) {
  std::string message = encode(-1, {});
  for (;;) {
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);
    int32_t rule = -1;
    MPI_Recv(&rule, 1, MPI_INT32_T, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rule < 0) return;
    message = encode(rule, verify(rule));
  }
}

}  // namespace

int run_verifier_pool(const MpiWorld& world, const std::vector<int>& todo,
                      const std::function<RuleVerdict(int)>& verify,
                      const std::function<void(int, const RuleVerdict&)>& record) {
  if (world.size() == 1) {
    for (int rule : todo) record(rule, verify(rule));
    return 1;
  }
  if (world.rank() == 0)
    serve(world.size() - 1, todo, record);
  else
    work(verify);
  return world.size() - 1;
}

bool pool_releases_graphs(const MpiWorld& world, RuleDatabase& db) {
  const bool release = world.size() > 1 && !db.graphs_file.empty();
  if (release && world.rank() == 0) db.release_all_graphs();
  return release;
}

}  // namespace superopt::verify
