#include "exec/worker.hpp"

#include "util/error.hpp"
#include "util/escalation.hpp"
#include "util/process.hpp"
#include "util/process_tree.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace zl::exec {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds k_tick{50};
constexpr size_t k_tail = 4096; // how much of the worker's output is kept for a crash note

void close_fd(int& fd)
{
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

void write_all(int fd, const std::string& text)
{
  for (size_t done = 0; done < text.size();) {
    // A socket: a worker gone away gives EPIPE, never SIGPIPE.
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return; // the worker is gone: its end shows up on the reply pipe
    }
    done += static_cast<size_t>(n);
  }
}

std::string request_line(const std::vector<std::string>& args, const std::vector<std::string>& env,
                         const std::string& cwd)
{
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer); // compact: one line
  auto str = [&w](const std::string& s) { w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size())); };
  w.StartObject();
  w.Key("args");
  w.StartArray();
  for (const auto& a : args) {
    str(a);
  }
  w.EndArray();
  w.Key("env");
  w.StartObject();
  for (const auto& entry : env) {
    const auto eq = entry.find('=');
    str(entry.substr(0, eq));
    str(eq == std::string::npos ? std::string() : entry.substr(eq + 1));
  }
  w.EndObject();
  w.Key("cwd");
  str(cwd);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

// A line of the stack dump Python's faulthandler prints on a fatal signal: what the worker was
// doing, not what it said.
bool stack_dump_line(const std::string& line)
{
  for (const char* prefix : {"  File ", "Current thread ", "Thread 0x", "Extension modules:", "  <no Python frame>"}) {
    if (line.rfind(prefix, 0) == 0) {
      return true;
    }
  }
  return false;
}

// The last few non-empty lines of text (less a faulthandler stack dump), on one line.
std::string last_lines(const std::string& text)
{
  std::vector<std::string> lines;
  size_t end = text.size();
  while (end > 0 && lines.size() < 3) {
    const size_t start = text.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    auto line = text.substr(from, end - from);
    if (line.find_first_not_of(" \t\r") != std::string::npos && !stack_dump_line(line)) {
      lines.insert(lines.begin(), line);
    }
    if (start == std::string::npos) {
      break;
    }
    end = start;
  }
  std::string out;
  for (const auto& l : lines) {
    out += (out.empty() ? "" : " | ") + l;
  }
  return out.size() > 400 ? "…" + out.substr(out.size() - 400) : out;
}

// The strings of d[key], a list (absent: none).
std::vector<std::string> strings_of(const rapidjson::Document& d, const char* key)
{
  std::vector<std::string> out;
  if (d.HasMember(key) && d[key].IsArray()) {
    for (const auto& v : d[key].GetArray()) {
      if (v.IsString()) {
        out.emplace_back(v.GetString(), v.GetStringLength());
      }
    }
  }
  return out;
}

std::string how_it_ended(int status)
{
  if (WIFSIGNALED(status)) {
    return fmt::format("was killed by {}", util::signal_name(WTERMSIG(status)));
  }
  return fmt::format("exited with status {}", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

} // namespace

Worker::Worker(const std::string& python, const std::vector<std::string>& env, const std::vector<std::string>& preload,
               const std::string& device_module, const run::Sinks& sinks, const std::function<void(int)>& on_spawn)
{
  int requests[2], replies[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, requests) != 0 || ::pipe2(replies, O_CLOEXEC) != 0) {
    throw Error(fmt::format("cannot start a warm worker: {}", std::strerror(errno)));
  }
  util::SpawnSpec spec;
  spec.argv = {python, "-m", "zl_worker"};
  spec.env = env;
  spec.env->push_back("ZL_WORKER_FDS=3,4");
  std::string list;
  for (const auto& m : preload) {
    list += (list.empty() ? "" : ",") + m;
  }
  spec.env->push_back("ZL_WORKER_PRELOAD=" + list);
  spec.env->push_back("ZL_WORKER_DEVICE_MODULE=" + device_module);
  spec.new_process_group = true;
  // Not SIGKILL: the worker ends what its op started when zl dies (python/zl_plugins/zl_worker.py).
  // Not SIGTERM either: a dying zl's threads exit one by one, so the worker may be told while its
  // parent still has zl's pid, and must not take that for an ordinary stop.
  spec.parent_death_signal = SIGHUP;
  spec.on_spawn = on_spawn;
  util::Started started;
  try {
    started = util::start(spec, {requests[1], replies[1]});
  } catch (...) {
    ::close(requests[0]), ::close(requests[1]), ::close(replies[0]), ::close(replies[1]);
    throw;
  }
  ::close(requests[1]);
  ::close(replies[1]);
  m_pid = started.pid;
  m_output = util::Pump(started.out_fd, started.err_fd);
  m_to_worker = requests[0];
  m_from_worker = replies[0];
  std::string hello;
  if (!pump_until_reply(sinks, hello)) {
    const auto status = reap();
    throw Error(fmt::format("the warm worker (pid {}) {} before it was ready; it last printed: {}", m_pid,
                            how_it_ended(status), last_lines(m_last_output)));
  }
  rapidjson::Document d;
  if (d.Parse(hello.c_str()).HasParseError() || !d.IsObject() || !d.HasMember("ready")) {
    throw Error(fmt::format("the warm worker (pid {}) said {} instead of being ready; is {} zl's python/zl_plugins?",
                            m_pid, hello, python));
  }
  m_preloaded = strings_of(d, "preloaded");
  if (d.HasMember("failed") && d["failed"].IsObject()) {
    for (const auto& m : d["failed"].GetObject()) {
      m_failed.push_back(fmt::format("{}: {}", m.name.GetString(), m.value.IsString() ? m.value.GetString() : "?"));
    }
  }
}

Worker::~Worker()
{
  end_group();
}

util::Sink Worker::keeping(const util::Sink& sink)
{
  return [this, &sink](std::string_view chunk) {
    if (sink) {
      sink(chunk);
    }
    m_last_output.append(chunk);
    if (m_last_output.size() > 2 * k_tail) {
      m_last_output.erase(0, m_last_output.size() - k_tail);
    }
  };
}

bool Worker::pump_until_reply(const run::Sinks& sinks, std::string& reply, const std::function<void()>& tick)
{
  const auto out = keeping(sinks.out), err = keeping(sinks.err);
  char buf[4096];
  while (true) {
    // Output first: what the op printed before its reply belongs to it.
    const bool replied = m_output.pump(k_tick, out, err, m_from_worker);
    if (tick) {
      tick();
    }
    if (replied) {
      const ssize_t got = ::read(m_from_worker, buf, sizeof buf);
      if (got > 0) {
        m_replies.append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        m_dead = true;
      }
    }
    if (const auto nl = m_replies.find('\n'); nl != std::string::npos) {
      reply = m_replies.substr(0, nl);
      m_replies.erase(0, nl + 1);
      m_output.pump(std::chrono::milliseconds(0), out, err);
      return true;
    }
    int status;
    if (!m_dead && ::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_dead = true, m_status = status, m_reaped = true;
    }
    if (m_dead) {
      // What it printed last may still be in the pipes (a leftover may hold them: not for long).
      m_output.drain(util::k_drain_limit, out, err);
      return false;
    }
  }
}

int Worker::reap()
{
  if (!m_reaped && m_pid > 0) {
    while (::waitpid(m_pid, &m_status, 0) < 0 && errno == EINTR) {
    }
    m_reaped = true;
  }
  return m_status;
}

run::Launched Worker::run_op(const std::vector<std::string>& args, const std::vector<std::string>& env,
                             const std::string& cwd, const run::Sinks& sinks, const std::function<void()>& tick)
{
  run::Launched launched;
  launched.executor.name = "warm";
  launched.executor.pid = m_pid;
  launched.executor.ops_before = m_ops;
  launched.executor.preloaded = m_preloaded;
  m_last_output.clear();
  write_all(m_to_worker, request_line(args, env, cwd));
  std::string reply;
  if (pump_until_reply(sinks, reply, tick)) {
    ++m_ops;
    rapidjson::Document d;
    if (!d.Parse(reply.c_str()).HasParseError() && d.IsObject() && d.HasMember("exit") && d["exit"].IsInt()) {
      launched.result.exit_code = d["exit"].GetInt();
      launched.executor.restored = strings_of(d, "restored");
      launched.executor.recycled = strings_of(d, "unrestorable");
      m_spent = !launched.executor.recycled.empty();
    } else {
      m_dead = true; // a worker that says something else cannot be trusted with the next op
      launched.crash = fmt::format("the warm worker (pid {}) replied {}", m_pid, reply);
    }
    launched.result.leftovers = end_leftovers(sinks);
    return launched;
  }
  const auto last = last_lines(m_last_output);
  ::kill(-m_pid, SIGKILL); // whatever is left of its group (the worker is gone or mute)
  const int status = reap();
  if (WIFSIGNALED(status)) {
    launched.result.term_signal = WTERMSIG(status);
    launched.result.exit_code = 128 + WTERMSIG(status);
  } else {
    launched.result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  launched.crash = fmt::format("the warm worker (pid {}) {} during the op; it last printed: {}", m_pid,
                               how_it_ended(status), last.empty() ? "nothing" : last);
  return launched;
}

int Worker::end_leftovers(const run::Sinks& sinks)
{
  // What the op started and left running: the worker's group and its children, but the worker.
  const auto out = keeping(sinks.out), err = keeping(sinks.err);
  std::set<int> seen, termed;
  util::Escalation ending;
  const auto start = Clock::now();
  ending.begin(start);
  const auto give_up = start + ending.grace() + util::k_drain_limit;
  while (Clock::now() < give_up) {
    std::vector<int> live;
    for (const auto& st : util::list_processes()) {
      if (st.pid != m_pid && st.state != 'Z' && st.state != 'X' && (st.pgrp == m_pid || st.ppid == m_pid)) {
        live.push_back(st.pid);
      }
    }
    if (live.empty()) {
      break;
    }
    // Each new leftover gets the signal of the moment: SIGTERM once, or SIGKILL on every pass.
    const int sig = ending.stage(Clock::now());
    for (int pid : live) {
      seen.insert(pid);
      if (sig == SIGKILL || termed.insert(pid).second) {
        ::kill(pid, sig);
        ::kill(pid, SIGCONT);
      }
    }
    m_output.pump(k_tick / 2, out, err);
  }
  return static_cast<int>(seen.size());
}

void Worker::end_group()
{
  if (m_pid <= 0) {
    return;
  }
  close_fd(m_to_worker); // end of requests: a healthy worker exits by itself
  // A healthy worker exits within moments; then SIGTERM to its group, the grace period, SIGKILL.
  const auto term_at = Clock::now() + util::k_drain_limit;
  util::Escalation ending;
  while (!m_reaped) {
    const pid_t w = ::waitpid(m_pid, &m_status, WNOHANG);
    if (w == m_pid || (w < 0 && errno != EINTR)) {
      m_reaped = true;
      break;
    }
    const auto now = Clock::now();
    if (!ending.begun() && now >= term_at) {
      ending.begin(term_at); // the grace counts from term_at, not from this tick
      ::kill(-m_pid, SIGTERM);
      ::kill(-m_pid, SIGCONT);
    }
    if (ending.stage(now) == SIGKILL) {
      ::kill(-m_pid, SIGKILL); // on every tick until the worker is reaped
    }
    std::this_thread::sleep_for(k_tick);
  }
  ::kill(-m_pid, SIGKILL); // what the worker left in its group
  close_fd(m_from_worker);
  m_output.close();
  m_pid = -1;
}

} // namespace zl::exec
