#include "bench/datatype.h"

#include <algorithm>

namespace railkit::bench {
namespace {

struct TypeEntry {
  DataType type;
  const char* name;
  std::size_t size;
};
const TypeEntry kTypes[] = {
    {DataType::kInt8, "int8", 1},     {DataType::kUint8, "uint8", 1},   {DataType::kInt32, "int32", 4},
    {DataType::kUint32, "uint32", 4}, {DataType::kInt64, "int64", 8},   {DataType::kUint64, "uint64", 8},
    {DataType::kFloat, "float", 4},   {DataType::kDouble, "double", 8},
};
const char* kOpNames[] = {"sum", "prod", "min", "max"};

template <class T>
void reduceTyped(ReduceOp op, T* d, const T* s, std::size_t n) {
  switch (op) {
    case ReduceOp::kSum:
      for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] + s[i]);
      break;
    case ReduceOp::kProd:
      for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] * s[i]);
      break;
    case ReduceOp::kMin:
      for (std::size_t i = 0; i < n; ++i) d[i] = std::min(d[i], s[i]);
      break;
    case ReduceOp::kMax:
      for (std::size_t i = 0; i < n; ++i) d[i] = std::max(d[i], s[i]);
      break;
  }
}

template <class T>
void reduceTyped3(ReduceOp op, T* d, const T* a, const T* b, std::size_t n) {
  switch (op) {
    case ReduceOp::kSum:
      for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(a[i] + b[i]);
      break;
    case ReduceOp::kProd:
      for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(a[i] * b[i]);
      break;
    case ReduceOp::kMin:
      for (std::size_t i = 0; i < n; ++i) d[i] = std::min(a[i], b[i]);
      break;
    case ReduceOp::kMax:
      for (std::size_t i = 0; i < n; ++i) d[i] = std::max(a[i], b[i]);
      break;
  }
}

template <class T>
void fillTyped(ReduceOp op, T* b, std::size_t n, int rank, std::size_t first, std::uint32_t seed) {
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<T>(seededValue(op, rank, first + i, seed));
}

}  // namespace

std::optional<DataType> dataTypeFromName(std::string_view name) {
  if (name == "char") return DataType::kInt8;
  if (name == "int") return DataType::kInt32;
  if (name == "float32") return DataType::kFloat;
  if (name == "float64") return DataType::kDouble;
  for (const auto& t : kTypes) {
    if (name == t.name) return t.type;
  }
  return std::nullopt;
}

std::optional<ReduceOp> reduceOpFromName(std::string_view name) {
  for (int i = 0; i < 4; ++i) {
    if (name == kOpNames[i]) return static_cast<ReduceOp>(i);
  }
  return std::nullopt;
}

const char* dataTypeName(DataType type) {
  return kTypes[static_cast<int>(type)].name;
}
const char* reduceOpName(ReduceOp op) {
  return kOpNames[static_cast<int>(op)];
}
std::size_t dataTypeSize(DataType type) {
  return kTypes[static_cast<int>(type)].size;
}

void reduceInto(DataType type, ReduceOp op, void* dst, const void* src, std::size_t n) {
  switch (type) {
    case DataType::kInt8:
      return reduceTyped(op, static_cast<int8_t*>(dst), static_cast<const int8_t*>(src), n);
    case DataType::kUint8:
      return reduceTyped(op, static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n);
    case DataType::kInt32:
      return reduceTyped(op, static_cast<int32_t*>(dst), static_cast<const int32_t*>(src), n);
    case DataType::kUint32:
      return reduceTyped(op, static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), n);
    case DataType::kInt64:
      return reduceTyped(op, static_cast<int64_t*>(dst), static_cast<const int64_t*>(src), n);
    case DataType::kUint64:
      return reduceTyped(op, static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), n);
    case DataType::kFloat:
      return reduceTyped(op, static_cast<float*>(dst), static_cast<const float*>(src), n);
    case DataType::kDouble:
      return reduceTyped(op, static_cast<double*>(dst), static_cast<const double*>(src), n);
  }
}

void reduce(DataType type, ReduceOp op, void* dst, const void* a, const void* b, std::size_t n) {
  switch (type) {
#define RK_REDUCE3(K, T) \
  case DataType::K:      \
    return reduceTyped3(op, static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b), n);
    RK_REDUCE3(kInt8, int8_t)
    RK_REDUCE3(kUint8, uint8_t)
    RK_REDUCE3(kInt32, int32_t)
    RK_REDUCE3(kUint32, uint32_t)
    RK_REDUCE3(kInt64, int64_t)
    RK_REDUCE3(kUint64, uint64_t)
    RK_REDUCE3(kFloat, float)
    RK_REDUCE3(kDouble, double)
#undef RK_REDUCE3
  }
}

// Values stay tiny so sums over up to 15 ranks fit int8 and products of
// 1s and 2s over up to 6 ranks fit too: every type then holds them exactly.
double seededValue(ReduceOp op, int rank, std::size_t index, std::uint32_t seed) {
  // splitmix64 finaliser over (index, rank, seed): every input bit moves the value.
  std::uint64_t h = (index + 1) * 0x9E3779B97F4A7C15ull ^
                    (static_cast<std::uint64_t>(rank) + 1) * 0xC2B2AE3D27D4EB4Full ^
                    (static_cast<std::uint64_t>(seed) + 1) * 0xD6E8FEB86659FD93ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  if (op == ReduceOp::kProd) return 1.0 + static_cast<double>((h >> 7) % 4 == 0);
  return static_cast<double>((h >> 11) % 8);
}

double reducedValue(ReduceOp op, int ranks, std::size_t index, std::uint32_t seed) {
  double acc = seededValue(op, 0, index, seed);
  for (int r = 1; r < ranks; ++r) {
    double v = seededValue(op, r, index, seed);
    switch (op) {
      case ReduceOp::kSum: acc += v; break;
      case ReduceOp::kProd: acc *= v; break;
      case ReduceOp::kMin: acc = std::min(acc, v); break;
      case ReduceOp::kMax: acc = std::max(acc, v); break;
    }
  }
  return acc;
}

void fillSeeded(DataType type, ReduceOp op, void* b, std::size_t n, int rank, std::size_t first,
                std::uint32_t seed) {
  switch (type) {
    case DataType::kInt8: return fillTyped(op, static_cast<int8_t*>(b), n, rank, first, seed);
    case DataType::kUint8: return fillTyped(op, static_cast<uint8_t*>(b), n, rank, first, seed);
    case DataType::kInt32: return fillTyped(op, static_cast<int32_t*>(b), n, rank, first, seed);
    case DataType::kUint32: return fillTyped(op, static_cast<uint32_t*>(b), n, rank, first, seed);
    case DataType::kInt64: return fillTyped(op, static_cast<int64_t*>(b), n, rank, first, seed);
    case DataType::kUint64: return fillTyped(op, static_cast<uint64_t*>(b), n, rank, first, seed);
    case DataType::kFloat: return fillTyped(op, static_cast<float*>(b), n, rank, first, seed);
    case DataType::kDouble: return fillTyped(op, static_cast<double*>(b), n, rank, first, seed);
  }
}

double elementAsDouble(DataType type, const void* b, std::size_t i) {
  switch (type) {
    case DataType::kInt8: return static_cast<const int8_t*>(b)[i];
    case DataType::kUint8: return static_cast<const uint8_t*>(b)[i];
    case DataType::kInt32: return static_cast<const int32_t*>(b)[i];
    case DataType::kUint32: return static_cast<const uint32_t*>(b)[i];
    case DataType::kInt64: return static_cast<double>(static_cast<const int64_t*>(b)[i]);
    case DataType::kUint64: return static_cast<double>(static_cast<const uint64_t*>(b)[i]);
    case DataType::kFloat: return static_cast<const float*>(b)[i];
    case DataType::kDouble: return static_cast<const double*>(b)[i];
  }
  return 0;
}

}  // namespace railkit::bench
