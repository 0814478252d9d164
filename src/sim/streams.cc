#include "sim/streams.h"

#include <cmath>

namespace erails::sim {

double exponential(double rate, devices::Rng& rng) { return -std::log(1 - rng.uniform()) / rate; }

Streams::Streams(const std::vector<StreamConfig>& configs, const Traces& traces)
    : configs_(configs), states_(configs.size()) {
  for (size_t s = 0; s < configs.size(); ++s) {
    states_[s].first_object = objects_;
    objects_ += configs[s].objects;
    if (configs[s].kind == StreamKind::kTrace) states_[s].trace = &traces.at(configs[s].trace);
  }
}

std::vector<double> Streams::first_arrivals(uint32_t s, devices::Rng& rng) const {
  const StreamConfig& sc = configs_[s];
  switch (sc.kind) {
    case StreamKind::kClosed: return std::vector<double>(sc.outstanding, sc.start);
    case StreamKind::kOpen: return {sc.start + exponential(sc.rate, rng)};
    case StreamKind::kTrace: return {sc.start + states_[s].trace->front().time / sc.trace_speed};
  }
  return {};
}

bool Streams::may_issue(uint32_t s, double now, double duration) const {
  const StreamConfig& sc = configs_[s];
  return now < sc.stop && now < duration && (sc.max_requests == 0 || states_[s].issued < sc.max_requests);
}

Arrival Streams::next(uint32_t s, double now, devices::Rng& rng) {
  const StreamConfig& sc = configs_[s];
  State& st = states_[s];
  st.issued++;
  if (sc.kind == StreamKind::kTrace) {
    const TraceRecord& r = (*st.trace)[st.trace_index++];
    Arrival a{{r.operation, st.first_object + (r.offset / sc.size) % sc.objects, r.size}, std::nullopt};
    if (st.trace_index < st.trace->size()) a.next_at = sc.start + (*st.trace)[st.trace_index].time / sc.trace_speed;
    return a;
  }
  const bool read = sc.read_fraction >= 1 || rng.uniform() < sc.read_fraction;
  const uint64_t object = sc.sequential ? st.next_sequential++ % sc.objects : rng.below(sc.objects);
  Arrival a{{read ? Operation::read : Operation::write, st.first_object + object, sc.size}, std::nullopt};
  if (sc.kind == StreamKind::kOpen) a.next_at = now + exponential(sc.rate, rng);
  return a;
}

}  // namespace erails::sim
