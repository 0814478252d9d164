#include "ceph_abi/osd_commands.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>

#include "ceph_abi/daemon_log.h"

namespace erails::ceph_osd {
namespace {

void* admin_socket_of(void* cct) {
  const auto get_socket = reinterpret_cast<GetAdminSocket>(dlsym(RTLD_DEFAULT, kGetAdminSocketSymbol));
  return get_socket == nullptr || cct == nullptr ? nullptr : get_socket(cct);
}

// The value in `config get`'s answer, {"<name>": "<value>"}; empty if it is not there.
std::string config_value(void* cct, const std::string& name) {
  const auto outcome = execute_command(cct, R"({"prefix":"config get","var":")" + name + R"("})");
  const std::string key = "\"" + name + "\": \"";
  const auto start = outcome.result == 0 ? outcome.output.find(key) : std::string::npos;
  if (start == std::string::npos) return "";
  const auto end = outcome.output.find('"', start + key.size());
  return end == std::string::npos ? "" : outcome.output.substr(start + key.size(), end - start - key.size());
}

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + length, sizeof text - length, ".%03d+0000", static_cast<int>(millis));
  return text;
}

}  // namespace

std::vector<std::string> words_argument(const CmdMap& cmdmap, const char* name) {
  if (const auto it = cmdmap.find(name); it != cmdmap.end()) {
    if (const auto* words = boost::get<std::vector<std::string>>(&it->second)) return *words;
  }
  return {};
}

bool wants_json(const CmdMap& cmdmap) {
  if (const auto it = cmdmap.find("format"); it != cmdmap.end()) {
    if (const auto* format = boost::get<std::string>(&it->second)) return format->rfind("json", 0) == 0;
  }
  return false;
}

Status register_commands(void* cct, AdminSocketHook* hook, const std::vector<CommandSpec>& commands) {
  const auto register_command =
      reinterpret_cast<RegisterCommand>(dlsym(RTLD_DEFAULT, kRegisterCommandSymbol));
  void* socket = admin_socket_of(cct);
  if (register_command == nullptr || socket == nullptr) {
    return Error{"admin socket", "the symbols to register commands are missing in this daemon"};
  }
  for (const auto& command : commands) {
    const int r = register_command(socket, command.descriptor, hook, command.help);
    if (r != 0) {
      return Error{command.descriptor, "registering it failed with " + std::to_string(r)};
    }
  }
  return Ok{};
}

CommandOutcome execute_command(void* cct, const std::string& json) {
  const auto execute = reinterpret_cast<ExecuteCommand>(dlsym(RTLD_DEFAULT, kExecuteCommandSymbol));
  void* socket = admin_socket_of(cct);
  if (execute == nullptr || socket == nullptr) {
    return {-ENOSYS, "", "the admin socket's execute_command is missing in this daemon"};
  }
  const std::vector<std::string> command{json};
  const ceph::buffer::list input;
  ceph::buffer::list output;
  std::ostringstream errors;
  const int result = execute(socket, command, input, errors, &output);
  return {result, output.to_str(), errors.str()};
}

void log_to_daemon(void* cct, const char* library, const std::string& text) {
  log_line(library, text);
  const std::string path = cct == nullptr ? "" : config_value(cct, "log_file");
  if (path.empty()) return;
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  // One write of a whole line, so that it is not interleaved with the lines of Ceph's own log
  // thread, which appends to the same file.
  const std::string line = timestamp() + " erails " + library + ": " + text + "\n";
  [[maybe_unused]] const ssize_t written = write(fd, line.data(), line.size());
  close(fd);
}

void* daemon_context() {
  auto* const* global = static_cast<void* const*>(dlsym(RTLD_DEFAULT, kGlobalContextSymbol));
  return global == nullptr ? nullptr : *global;
}

}  // namespace erails::ceph_osd
