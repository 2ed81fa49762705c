#pragma once
// Element types and reduction operators of nccl-tests (-d, -o), the
// reduction kernel the collectives call on received chunks, and the seeded
// input/expected values that make every element checkable: rank r's element
// i is a small integer derived from (r, i, seed), exact in every type, so the
// expected result of any op over any ranks is computable locally.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace railkit::bench {

enum class DataType { kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kFloat, kDouble };
enum class ReduceOp { kSum, kProd, kMin, kMax };

std::optional<DataType> dataTypeFromName(std::string_view name);  // "float", "int32", also "half"-less
std::optional<ReduceOp> reduceOpFromName(std::string_view name);
const char* dataTypeName(DataType type);
const char* reduceOpName(ReduceOp op);
std::size_t dataTypeSize(DataType type);

// dst[i] = dst[i] op src[i] for `count` elements.
void reduceInto(DataType type, ReduceOp op, void* dst, const void* src, std::size_t count);
// dst[i] = a[i] op b[i] for `count` elements; dst may be a (not b), so a
// reduction can write its result elsewhere without copying its input first.
void reduce(DataType type, ReduceOp op, void* dst, const void* a, const void* b, std::size_t count);

// The value rank `rank` contributes at element `index` (as a double; exact).
double seededValue(ReduceOp op, int rank, std::size_t index, std::uint32_t seed);
// The reduction over ranks 0..ranks-1 of seededValue at `index`.
double reducedValue(ReduceOp op, int ranks, std::size_t index, std::uint32_t seed);

// Fills `count` elements of `buffer` with the value rank `rank` contributes,
// for element indices first..first+count-1.
void fillSeeded(DataType type, ReduceOp op, void* buffer, std::size_t count, int rank, std::size_t first,
                std::uint32_t seed);
// Counts elements that differ from `expected(i)` for i in first..first+count-1.
template <class Fn>
std::size_t countWrong(DataType type, const void* buffer, std::size_t count, Fn expected);
double elementAsDouble(DataType type, const void* buffer, std::size_t i);

template <class Fn>
std::size_t countWrong(DataType type, const void* buffer, std::size_t count, Fn expected) {
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (elementAsDouble(type, buffer, i) != expected(i)) ++wrong;
  }
  return wrong;
}

}  // namespace railkit::bench
