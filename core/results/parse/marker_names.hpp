// The names of marker lines (docs/plan-file.md, "Marker lines"), spelled once: zl writes some,
// the Python plugins write the others and zl reads them back. A name is a contract with old
// logs and with the plugins: test_results_parse_marker_names.cpp checks that python/zl_plugins
// writes exactly the names listed as the plugins' here.
#pragma once

#include <array>
#include <string_view>

namespace zl::results::parse::marker_names {

// zl's own.
inline constexpr std::string_view k_zl_run = "ZL_RUN"; // the run header, first line of run.log
inline constexpr std::string_view k_preflight_failed = "PREFLIGHT_FAILED";
inline constexpr std::string_view k_sweep_resolved = "SWEEP_RESOLVED";
inline constexpr std::string_view k_sweep_unresolved = "SWEEP_UNRESOLVED";
inline constexpr std::string_view k_sweep_worker_start = "SWEEP_WORKER_START";
inline constexpr std::string_view k_sweep_worker_end = "SWEEP_WORKER_END";
inline constexpr std::string_view k_sweep_shard_failed = "SWEEP_SHARD_FAILED";
inline constexpr std::string_view k_sweep_merge_conflict = "SWEEP_MERGE_CONFLICT";
inline constexpr std::string_view k_sweep_serial = "SWEEP_SERIAL";
inline constexpr std::string_view k_sweep_published = "SWEEP_PUBLISHED";
inline constexpr std::string_view k_sweep_failed = "SWEEP_FAILED";

// The plugins'.
inline constexpr std::string_view k_zl_timer = "ZL_TIMER";
inline constexpr std::string_view k_benchmark_direct_no_cudagraph = "BENCHMARK_DIRECT_NO_CUDAGRAPH";
inline constexpr std::string_view k_benchmark_capture_poisoned = "BENCHMARK_CAPTURE_POISONED";
inline constexpr std::string_view k_benchmark_capture_denied = "BENCHMARK_CAPTURE_DENIED";
inline constexpr std::string_view k_zl_compat_dropped = "ZL_COMPAT_DROPPED";
inline constexpr std::string_view k_zl_compat_kept = "ZL_COMPAT_KEPT";
inline constexpr std::string_view k_zl_device_mismatch = "ZL_DEVICE_MISMATCH";
inline constexpr std::string_view k_zl_identity_write_failed = "ZL_IDENTITY_WRITE_FAILED";
inline constexpr std::string_view k_zl_samples_write_failed = "ZL_SAMPLES_WRITE_FAILED";
inline constexpr std::string_view k_zl_unsupported = "ZL_UNSUPPORTED";
inline constexpr std::string_view k_zl_metrics_added = "ZL_METRICS_ADDED";
inline constexpr std::string_view k_zl_metric_failed = "ZL_METRIC_FAILED";
inline constexpr std::string_view k_zl_collect_write_failed = "ZL_COLLECT_WRITE_FAILED"; // standard error
inline constexpr std::string_view k_autotune_hook = "AUTOTUNE_HOOK";
inline constexpr std::string_view k_autotune_replay_loaded = "AUTOTUNE_REPLAY_LOADED";
inline constexpr std::string_view k_autotune_benchmarked = "AUTOTUNE_BENCHMARKED";
inline constexpr std::string_view k_autotune_replay_fallback = "AUTOTUNE_REPLAY_FALLBACK";
inline constexpr std::string_view k_autotune_summary = "AUTOTUNE_SUMMARY";
inline constexpr std::string_view k_autotune_record_write_failed = "AUTOTUNE_RECORD_WRITE_FAILED";

// Every name the plugins write.
inline constexpr std::array<std::string_view, 19> k_plugins = {
    k_zl_timer,
    k_benchmark_direct_no_cudagraph,
    k_benchmark_capture_poisoned,
    k_benchmark_capture_denied,
    k_zl_compat_dropped,
    k_zl_compat_kept,
    k_zl_device_mismatch,
    k_zl_identity_write_failed,
    k_zl_samples_write_failed,
    k_zl_unsupported,
    k_zl_metrics_added,
    k_zl_metric_failed,
    k_zl_collect_write_failed,
    k_autotune_hook,
    k_autotune_replay_loaded,
    k_autotune_benchmarked,
    k_autotune_replay_fallback,
    k_autotune_summary,
    k_autotune_record_write_failed,
};

} // namespace zl::results::parse::marker_names
