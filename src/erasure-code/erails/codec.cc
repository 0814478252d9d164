#include "erasure-code/erails/codec.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>

#include "erasure-code/erails/isal.h"
#include "erasure-code/erails/region_xor.h"

extern "C" {
#include <jerasure.h>
#include <jerasure/cauchy.h>
#include <jerasure/galois.h>
#include <jerasure/reed_sol.h>
}

namespace erails {
namespace {

constexpr unsigned kBaseAlignment = 64;
// ec_init_tables expands every coefficient into this many bytes of lookup tables.
constexpr size_t kIsalTableBytes = 32;

// gf-complete initialises a field lazily on first use, which races when several OSD threads
// encode at once; initialise each word size once, up front, under a lock.
bool init_galois_field(int w) {
  static std::mutex mutex;
  static bool initialised[33] = {};
  std::lock_guard<std::mutex> lock(mutex);
  if (!initialised[w]) initialised[w] = galois_init_default_field(w) == 0;
  return initialised[w];
}

}  // namespace

Codec::Codec(const Profile& profile)
    : k_(profile.k),
      m_(profile.m),
      w_(profile.w),
      technique_(profile.technique),
      packetsize_(profile.packetsize) {}

Codec::~Codec() {
  if (schedule_ != nullptr) jerasure_free_schedule(schedule_);
  std::free(bitmatrix_);
  std::free(matrix_);
}

std::unique_ptr<Codec> Codec::create(const Profile& profile, std::string* error, Kernel kernel) {
  std::unique_ptr<Codec> codec(new Codec(profile));
  const int k = profile.k, m = profile.m, w = profile.w;
  codec->alignment_ = kBaseAlignment;
  if (k == 1) return codec;  // replication mode: every chunk is a copy, no field arithmetic

  if (!init_galois_field(w)) {
    *error = "erails: gf-complete could not initialise GF(2^" + std::to_string(w) + ")";
    return nullptr;
  }
  switch (profile.technique) {
    case Technique::kReedSolVan:
      codec->matrix_ = reed_sol_vandermonde_coding_matrix(k, m, w);
      break;
    case Technique::kCauchyOrig:
      codec->matrix_ = cauchy_original_coding_matrix(k, m, w);
      break;
    case Technique::kCauchyGood:
      codec->matrix_ = cauchy_good_general_coding_matrix(k, m, w);
      break;
  }
  if (codec->matrix_ == nullptr) {
    *error = "erails: jerasure could not build the coding matrix";
    return nullptr;
  }
  bool ones = true;
  for (int j = 0; j < k; ++j) ones = ones && codec->matrix_[j] == 1;
  codec->row_k_ones_ = ones;
  if (profile.technique == Technique::kReedSolVan && w == 8 && kernel == Kernel::kFastest) {
    codec->isal_ = Isal::get(error);
    if (codec->isal_ == nullptr) return nullptr;
    std::vector<unsigned char> coefficients(codec->matrix_, codec->matrix_ + m * k);
    codec->encode_tables_.resize(kIsalTableBytes * k * m);
    codec->isal_->ec_init_tables(k, m, coefficients.data(), codec->encode_tables_.data());
    codec->xor_rows_ = region_xor_supported();
  }

  if (profile.technique != Technique::kReedSolVan) {
    codec->bitmatrix_ = jerasure_matrix_to_bitmatrix(k, m, w, codec->matrix_);
    if (codec->bitmatrix_ != nullptr)
      codec->schedule_ = jerasure_smart_bitmatrix_to_schedule(k, m, w, codec->bitmatrix_);
    if (codec->schedule_ == nullptr) {
      *error = "erails: jerasure could not build the cauchy bit matrix schedule";
      return nullptr;
    }
    codec->alignment_ = std::lcm(kBaseAlignment, static_cast<unsigned>(w * profile.packetsize));
  }
  return codec;
}

unsigned Codec::chunk_size(unsigned object_size) const {
  const unsigned per_chunk = object_size / k_ + (object_size % k_ != 0);
  return (per_chunk + alignment_ - 1) / alignment_ * alignment_;
}

void Codec::encode(char* const* data, char* const* coding, unsigned chunk_size) const {
  if (chunk_size == 0) return;
  if (k_ == 1) {
    for (int i = 0; i < m_; ++i) std::memcpy(coding[i], data[0], chunk_size);
    return;
  }
  if (isal_ && m_ == 1 && row_k_ones_ && xor_rows_) {
    region_xor(reinterpret_cast<const unsigned char* const*>(data), k_,
               reinterpret_cast<unsigned char*>(coding[0]), chunk_size);
  } else if (isal_) {
    isal_->ec_encode_data(static_cast<int>(chunk_size), k_, m_,
                          const_cast<unsigned char*>(encode_tables_.data()),
                          reinterpret_cast<unsigned char**>(const_cast<char**>(data)),
                          reinterpret_cast<unsigned char**>(const_cast<char**>(coding)));
  } else if (technique_ == Technique::kReedSolVan) {
    jerasure_matrix_encode(k_, m_, w_, matrix_, const_cast<char**>(data),
                           const_cast<char**>(coding), static_cast<int>(chunk_size));
  } else {
    jerasure_schedule_encode(k_, m_, w_, schedule_, const_cast<char**>(data),
                             const_cast<char**>(coding), static_cast<int>(chunk_size),
                             packetsize_);
  }
}

bool Codec::decode(const std::vector<int>& erased, char* const* data, char* const* coding,
                   unsigned chunk_size) const {
  const int n = k_ + m_;
  if (static_cast<int>(erased.size()) > m_) return false;
  for (int id : erased)
    if (id < 0 || id >= n) return false;
  if (erased.empty() || chunk_size == 0) return true;

  if (k_ == 1) {
    std::vector<bool> lost(n, false);
    for (int id : erased) lost[id] = true;
    auto chunk = [&](int id) { return id == 0 ? data[0] : coding[id - 1]; };
    int survivor = 0;
    while (lost[survivor]) ++survivor;  // erased.size() <= m < n, so one survives
    for (int id : erased) std::memcpy(chunk(id), chunk(survivor), chunk_size);
    return true;
  }

  if (isal_) {
    uint64_t mask = 0;
    for (int id : erased) mask |= uint64_t{1} << id;
    return decode_isal(mask, data, coding, chunk_size);
  }

  // jerasure wants the erased ids as a -1 terminated array.
  std::vector<int> erasures(erased);
  erasures.push_back(-1);
  int r;
  if (technique_ == Technique::kReedSolVan) {
    r = jerasure_matrix_decode(k_, m_, w_, matrix_, row_k_ones_, erasures.data(),
                               const_cast<char**>(data), const_cast<char**>(coding),
                               static_cast<int>(chunk_size));
  } else {
    r = jerasure_schedule_decode_lazy(k_, m_, w_, bitmatrix_, erasures.data(),
                                      const_cast<char**>(data), const_cast<char**>(coding),
                                      static_cast<int>(chunk_size), packetsize_, 1);
  }
  return r == 0;
}

bool Codec::decode_isal(uint64_t erased, char* const* data, char* const* coding,
                        unsigned chunk_size) const {
  auto plan = DecodeCache::shared().get({k_, m_, erased}, [&] { return make_decode_plan(erased); });
  if (!plan) return false;
  auto chunk = [&](int id) {
    return reinterpret_cast<unsigned char*>(id < k_ ? data[id] : coding[id - k_]);
  };
  // On the stack: at 4 KiB objects a heap allocation per call costs as much as the coding.
  std::array<unsigned char*, kMaxChunks> sources, outputs;
  const int rebuilt = static_cast<int>(plan->outputs.size());
  for (int i = 0; i < k_; ++i) sources[i] = chunk(plan->survivors[i]);
  for (int i = 0; i < rebuilt; ++i) outputs[i] = chunk(plan->outputs[i]);
  if (plan->by_xor) {
    region_xor(sources.data(), k_, outputs[0], chunk_size);
    return true;
  }
  isal_->ec_encode_data(static_cast<int>(chunk_size), k_, rebuilt,
                        const_cast<unsigned char*>(plan->tables.data()), sources.data(),
                        outputs.data());
  return true;
}

std::shared_ptr<const DecodePlan> Codec::make_decode_plan(uint64_t erased) const {
  const int n = k_ + m_;
  auto plan = std::make_shared<DecodePlan>();
  for (int id = 0; id < n; ++id) {
    const bool lost = (erased >> id) & 1;
    if (lost) plan->outputs.push_back(id);
    else if (static_cast<int>(plan->survivors.size()) < k_) plan->survivors.push_back(id);
  }
  // Row r of `generator` makes survivor r from the data chunks: a unit row for a data chunk, its
  // coding row for a coding chunk. Its inverse makes the data chunks from the survivors.
  const size_t kk = static_cast<size_t>(k_) * k_;
  std::vector<unsigned char> generator(kk, 0), inverse(kk);
  for (int r = 0; r < k_; ++r) {
    const int id = plan->survivors[r];
    for (int c = 0; c < k_; ++c)
      generator[r * k_ + c] =
          static_cast<unsigned char>(id < k_ ? id == c : matrix_[(id - k_) * k_ + c]);
  }
  if (isal_->gf_invert_matrix(generator.data(), inverse.data(), k_) != 0) return nullptr;

  // An erased data chunk is its row of the inverse; an erased coding chunk is its coding row
  // times the inverse, so that it too is made straight from the survivors in the same pass.
  std::vector<unsigned char> rows;
  for (int id : plan->outputs) {
    if (id < k_) {
      rows.insert(rows.end(), inverse.begin() + id * k_, inverse.begin() + (id + 1) * k_);
      continue;
    }
    const int* coding_row = matrix_ + (id - k_) * k_;
    for (int c = 0; c < k_; ++c) {
      unsigned char sum = 0;
      for (int j = 0; j < k_; ++j)
        sum ^= isal_->gf_mul(static_cast<unsigned char>(coding_row[j]), inverse[j * k_ + c]);
      rows.push_back(sum);
    }
  }
  const int outputs = static_cast<int>(plan->outputs.size());
  plan->by_xor = xor_rows_ && outputs == 1 &&
                 std::all_of(rows.begin(), rows.end(), [](unsigned char c) { return c == 1; });
  if (plan->by_xor) return plan;
  plan->tables.resize(kIsalTableBytes * k_ * outputs);
  isal_->ec_init_tables(k_, outputs, rows.data(), plan->tables.data());
  return plan;
}

}  // namespace erails
