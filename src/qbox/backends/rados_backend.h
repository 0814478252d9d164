#pragma once
// A RADOS pool as the black box (librados C++ aio): the device's byte range is laid over
// `objects` objects of `object_size` bytes named "qbox.<index>", so a stream's offsets map to
// (object, offset in object); a request crossing an object's end is cut there. Built only with
// ERAILS_WITH_CEPH.
//
// librados completes requests on its own threads; the callbacks only append the slot to a
// mutex-protected list that collect() drains on the caller's thread, so the controller stays
// single-threaded.

#include <cstdint>
#include <memory>
#include <string>

#include "qbox/backend.h"

namespace erails::qbox {

struct RadosBackendConfig {
  std::string conf_path;           // ceph.conf of the cluster; "" = librados' default search
  std::string client_name = "client.admin";
  std::string pool;                // must exist
  std::uint64_t object_size = 4 << 20;  // bytes, a multiple of 4096, 64 KiB..64 MiB
  std::uint64_t objects = 64;           // 1..65536
  unsigned queue_depth = 32;            // 1..1024
};

class RadosBackend final : public Backend {
 public:
  // Connects, opens the pool and writes every object that is missing or short (reads of absent
  // objects would fail and cost nothing). Errors name the config field or the librados call.
  static Expected<std::unique_ptr<RadosBackend>> open(const RadosBackendConfig& config);
  ~RadosBackend() override;

  Status submit(const BackendRequest& request, Seconds now) override;
  void collect(Seconds now, std::vector<BackendCompletion>& out) override;
  void wait(Seconds timeout) override;

  std::uint64_t capacity_bytes() const;

 private:
  struct State;
  explicit RadosBackend(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace erails::qbox
