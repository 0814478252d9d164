#pragma once
// A file or block device as the black box: O_DIRECT (no page cache, as in thesis 3.4.1) and Linux
// kernel AIO (libaio), like the thesis prototype. One aligned buffer per queue slot, allocated at
// open; submit and collect allocate nothing.

#include <cstdint>
#include <memory>
#include <string>

#include "qbox/backend.h"

namespace erails::qbox {

struct FileBackendConfig {
  std::string path;
  // Regular files are created or extended to this size (bytes, > 0); block devices keep theirs.
  std::uint64_t size_bytes = 0;
  unsigned queue_depth = 32;           // requests in flight at most, 1..1024
  std::uint32_t max_request_bytes = 1 << 20;  // largest request, a multiple of 4096
};

class FileBackend final : public Backend {
 public:
  // Errors name the config field (path, size_bytes, queue_depth, max_request_bytes) or the
  // system call that failed with its errno text.
  static Expected<std::unique_ptr<FileBackend>> open(const FileBackendConfig& config);
  ~FileBackend() override;

  // Errors: offset/length not 4096-aligned (O_DIRECT), beyond the file, longer than
  // max_request_bytes, queue full, io_submit failure.
  Status submit(const BackendRequest& request, Seconds now) override;
  // Completions are stamped with the caller's `now`: the backend reads no clock.
  void collect(Seconds now, std::vector<BackendCompletion>& out) override;
  void wait(Seconds timeout) override;

  std::uint64_t capacity_bytes() const;

 private:
  struct State;
  explicit FileBackend(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace erails::qbox
