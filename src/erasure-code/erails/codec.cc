#include "erasure-code/erails/codec.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>

extern "C" {
#include <jerasure.h>
#include <jerasure/cauchy.h>
#include <jerasure/galois.h>
#include <jerasure/reed_sol.h>
}

namespace erails {
namespace {

constexpr unsigned kBaseAlignment = 64;

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
  if (profile.technique == Technique::kReedSolVan && w == 8 && kernel == Kernel::kFastest &&
      gf8_avx2_supported())
    codec->encode_tables_ = std::make_unique<Gf8Matrix>(m, k, codec->matrix_);

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
  if (encode_tables_) {
    encode_tables_->multiply(data, coding, chunk_size);
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

  if (encode_tables_) return decode_avx2(erased, data, coding, chunk_size);

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

bool Codec::decode_avx2(const std::vector<int>& erased, char* const* data, char* const* coding,
                        unsigned chunk_size) const {
  const int n = k_ + m_;
  std::vector<int> erased_flags(n, 0);
  for (int id : erased) erased_flags[id] = 1;
  std::vector<int> lost_data, lost_coding;
  for (int id = 0; id < n; ++id)
    if (erased_flags[id]) (id < k_ ? lost_data : lost_coding).push_back(id);

  if (!lost_data.empty()) {
    // Row i of the decoding matrix rebuilds data chunk i from the survivors named in dm_ids.
    std::vector<int> decoding(static_cast<size_t>(k_) * k_), dm_ids(k_);
    if (jerasure_make_decoding_matrix(k_, m_, w_, matrix_, erased_flags.data(), decoding.data(),
                                      dm_ids.data()) != 0)
      return false;
    std::vector<const char*> survivors(k_);
    for (int j = 0; j < k_; ++j)
      survivors[j] = dm_ids[j] < k_ ? data[dm_ids[j]] : coding[dm_ids[j] - k_];
    std::vector<int> rows;
    std::vector<char*> outputs;
    for (int id : lost_data) {
      rows.insert(rows.end(), decoding.begin() + id * k_, decoding.begin() + (id + 1) * k_);
      outputs.push_back(data[id]);
    }
    Gf8Matrix(static_cast<int>(lost_data.size()), k_, rows.data())
        .multiply(survivors.data(), outputs.data(), chunk_size);
  }
  if (!lost_coding.empty()) {
    std::vector<int> rows;
    std::vector<char*> outputs;
    for (int id : lost_coding) {
      const int row = id - k_;
      rows.insert(rows.end(), matrix_ + row * k_, matrix_ + (row + 1) * k_);
      outputs.push_back(coding[row]);
    }
    Gf8Matrix(static_cast<int>(lost_coding.size()), k_, rows.data())
        .multiply(data, outputs.data(), chunk_size);
  }
  return true;
}

}  // namespace erails
