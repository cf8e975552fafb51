#include "sweep/merge.hpp"

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/json.hpp"

#include <boost/filesystem.hpp>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <unistd.h>

namespace zl::sweep {

namespace fs = boost::filesystem;
using rapidjson::Document;
using rapidjson::Value;

namespace {

std::string compact(const Value& v, const std::string& what)
{
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  util::write_value(v, w, what);
  return std::string(buf.GetString(), buf.GetSize());
}

// As every JSON file zl writes (util::JsonWriter): indented by two, with a final newline.
std::string pretty(const Value& v, const std::string& what)
{
  util::JsonWriter j;
  j.copy(v, what);
  return j.text();
}

Document read_json(const std::string& path)
{
  Document doc;
  const auto text = util::read_file(path);
  if (doc.Parse(text.c_str()).HasParseError() || !doc.IsObject()) {
    throw Error(fmt::format("{} is not a JSON object (offset {})", path, doc.GetErrorOffset()));
  }
  if (!doc.HasMember("schema") || !doc["schema"].IsInt() || doc["schema"].GetInt() != 1) {
    throw Error(fmt::format("{}: schema must be 1 (written by another zl version?)", path));
  }
  return doc;
}

Value str(const std::string& s, Document::AllocatorType& a)
{
  return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

struct Kernel
{
  Value header{rapidjson::kObjectType}; // the kernel file minus its entries
  std::string file;
  Value entries{rapidjson::kArrayType};
  std::map<std::string, std::pair<size_t, std::string>> by_key; // key -> shard, config
};

} // namespace

Merged merge_records(const std::vector<ShardRecords>& shards, const std::string& sweep_json)
{
  Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  std::map<std::string, Kernel> kernels;
  std::map<std::string, std::string> file_owner;
  Merged merged;
  size_t tuned = 0;
  long long benchmarked = 0;
  for (const auto& shard : shards) {
    const auto manifest = read_json(shard.records_dir + "/manifest.json");
    if (!manifest.HasMember("kernels") || !manifest["kernels"].IsObject()) {
      throw Error(fmt::format("{}/manifest.json has no kernels object", shard.records_dir));
    }
    for (const auto& k : manifest["kernels"].GetObject()) {
      const std::string id = k.name.GetString();
      const std::string file = k.value.IsObject() && k.value.HasMember("file") && k.value["file"].IsString()
                                   ? k.value["file"].GetString()
                                   : "";
      const auto path = shard.records_dir + "/" + file;
      const auto doc = read_json(path);
      if (file.empty() || !doc.HasMember("entries") || !doc["entries"].IsArray()) {
        throw Error(fmt::format("{}: kernel {} has no entries list", path, id));
      }
      auto& kernel = kernels[id];
      if (kernel.file.empty()) {
        for (const auto& m : doc.GetObject()) {
          if (std::string(m.name.GetString()) != "entries") {
            kernel.header.AddMember(Value(m.name, a), Value(m.value, a), a);
          }
        }
        kernel.file = file;
        for (int n = 2; file_owner.count(kernel.file) != 0; ++n) {
          kernel.file = fmt::format("{}-{}.json", file.substr(0, file.size() - 5), n);
        }
        file_owner[kernel.file] = id;
      }
      for (const auto& entry : doc["entries"].GetArray()) {
        if (!entry.IsObject() || !entry.HasMember("key") || !entry.HasMember("config")) {
          throw Error(fmt::format("{}: an entry of kernel {} has no key or config", path, id));
        }
        const auto key = compact(entry["key"], path);
        const auto config = compact(entry["config"], path);
        const auto seen = kernel.by_key.find(key);
        if (seen != kernel.by_key.end()) {
          if (seen->second.second != config) {
            merged.conflicts.push_back({id, key, seen->second.first, shard.index, seen->second.second, config});
          }
          continue;
        }
        kernel.by_key.emplace(key, std::make_pair(shard.index, config));
        Value copy(entry, a);
        copy.AddMember("shard", static_cast<uint64_t>(shard.index), a);
        tuned += entry.HasMember("origin") && entry["origin"] == "tuned" ? size_t{1} : size_t{0};
        if (entry.HasMember("configs_benchmarked") && entry["configs_benchmarked"].IsInt64()) {
          benchmarked += entry["configs_benchmarked"].GetInt64();
        }
        kernel.entries.PushBack(copy, a);
      }
    }
  }
  Value index(rapidjson::kObjectType);
  for (auto& [id, kernel] : kernels) {
    Value doc(kernel.header, a);
    const auto count = kernel.entries.Size();
    doc.AddMember("entries", kernel.entries, a);
    merged.files.emplace_back(kernel.file, pretty(doc, fmt::format("kernel {} of the shards", id)));
    Value info(rapidjson::kObjectType);
    info.AddMember("file", str(kernel.file, a), a);
    info.AddMember("keys", count, a);
    index.AddMember(str(id, a), info, a);
    merged.keys += count;
  }
  merged.kernels = kernels.size();
  Document sweep;
  if (sweep.Parse(sweep_json.c_str()).HasParseError()) {
    sweep.SetNull();
  }
  out.AddMember("schema", 1, a);
  out.AddMember("kind", "zl-autotune-records", a);
  out.AddMember("kernels", index, a);
  Value summary(rapidjson::kObjectType);
  summary.AddMember("kernels", static_cast<uint64_t>(merged.kernels), a);
  summary.AddMember("keys", static_cast<uint64_t>(merged.keys), a);
  summary.AddMember("tuned", static_cast<uint64_t>(tuned), a);
  summary.AddMember("configs_benchmarked", static_cast<int64_t>(benchmarked), a);
  out.AddMember("summary", summary, a);
  out.AddMember("sweep", Value(sweep, a), a);
  merged.files.emplace_back("manifest.json", pretty(out, "the sweep's manifest"));
  return merged;
}

void publish_files(const std::vector<std::pair<std::string, std::string>>& files, const std::string& target)
{
  const fs::path to(target);
  if (fs::exists(to)) {
    throw Error(fmt::format("{} exists already; a sweep publishes into a fresh folder", target));
  }
  const auto tmp = to.parent_path() / fmt::format(".{}.tmp-{}", to.filename().string(), ::getpid());
  boost::system::error_code ec;
  fs::remove_all(tmp, ec);
  util::make_dirs(tmp.string());
  for (const auto& [name, content] : files) {
    util::write_file_atomic((tmp / name).string(), content); // checks each write and the close
  }
  fs::rename(tmp, to, ec);
  if (ec) {
    throw Error(fmt::format("cannot publish {}: {}", target, ec.message()));
  }
}

void publish_copy(const std::string& source_dir, const std::string& target)
{
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& entry : fs::directory_iterator(source_dir)) {
    if (fs::is_regular_file(entry.path()) && entry.path().extension() == ".json") {
      files.emplace_back(entry.path().filename().string(), util::read_file(entry.path().string()));
    }
  }
  std::sort(files.begin(), files.end());
  publish_files(files, target);
}

} // namespace zl::sweep
