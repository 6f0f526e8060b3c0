// SummarizeProfile: a Session's per-step times grouped by step name, the
// table `kiln bench --profile` prints.
#include <algorithm>
#include <map>

#include "kiln/runtime.h"
#include "runtime/src/guard_exceptions.h"

namespace kiln {

Status SummarizeProfile(const SessionProfile& profile, std::vector<ProfileEntry>* out,
                        double* outside_ms_per_run) {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "SummarizeProfile: out is null");
    if (profile.runs == 0)
      return Status(StatusCode::kFailedPrecondition, "SummarizeProfile: the profile holds no run");
    const double runs = static_cast<double>(profile.runs);
    struct Group {
      ProfileEntry entry;
      uint64_t calls = 0, total_ns = 0;
    };
    std::vector<Group> groups;
    std::map<std::string, size_t> by_name;
    uint64_t steps_ns = 0;
    for (const StepProfile& step : profile.steps) {
      auto [it, added] = by_name.emplace(step.name, groups.size());
      if (added) {
        Group g;
        g.entry.kind = step.kind;
        g.entry.name = step.name;
        g.entry.ops = step.ops;
        g.entry.workgroups = step.workgroups;
        groups.push_back(std::move(g));
      }
      Group& g = groups[it->second];
      if (step.workgroups != g.entry.workgroups) g.entry.workgroups_vary = true;
      g.calls += step.calls;
      g.total_ns += step.total_ns;
      steps_ns += step.total_ns;
    }
    std::vector<ProfileEntry> entries;
    for (Group& g : groups) {
      ProfileEntry& e = g.entry;
      if (e.workgroups_vary) e.workgroups = 0;
      e.calls_per_run = g.calls / profile.runs;
      e.ms_per_run = static_cast<double>(g.total_ns) / 1e6 / runs;
      e.share = profile.run_ns == 0 ? 0.0
                                    : 100.0 * static_cast<double>(g.total_ns) /
                                          static_cast<double>(profile.run_ns);
      entries.push_back(std::move(e));
    }
    // Longest first; plan order among equals (stable).
    std::stable_sort(entries.begin(), entries.end(),
                     [](const ProfileEntry& a, const ProfileEntry& b) { return a.ms_per_run > b.ms_per_run; });
    if (outside_ms_per_run != nullptr) {
      uint64_t outside_ns = profile.run_ns > steps_ns ? profile.run_ns - steps_ns : 0;
      *outside_ms_per_run = static_cast<double>(outside_ns) / 1e6 / runs;
    }
    *out = std::move(entries);
    return Status::Ok();
  });
}

}  // namespace kiln
