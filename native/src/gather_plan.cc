// A tabular epoch's gather, set up once and run once per batch with numbers only.
//
// gatherRecords (gather.cc) takes its buffers as typed arrays on every call, and looking a
// typed array up through Node-API costs about as much as copying a 256-row batch of two
// 8-byte fields (0.7 µs a call, 7 ms of a 1.28M-sample epoch's ~33 ms). Here the table, the
// ring slots and the epoch's order are handed over once; the per-batch call carries four
// numbers and copies every output's bytes of a row while the row is in cache.
//
// Lifetime: the JavaScript GatherPlan (core/native/gather-plan.ts) holds every array whose
// memory this plan points into, and checks before each run that none was detached; the
// external below lives only as long as that object.

#include <napi.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "beton_native.h"

namespace beton {
namespace {

struct Column {
  size_t offset;      // bytes into the record
  size_t width;       // bytes per row, also the row pitch in the slot
  uint8_t* dst;       // the output's ring
  size_t dst_bytes;
  size_t slot_bytes;  // slot s starts at dst + s * slot_bytes
};

struct Plan {
  const uint8_t* table = nullptr;
  size_t stride = 0;
  size_t records = 0;
  std::vector<Column> columns;
  const uint32_t* order = nullptr;
  size_t order_length = 0;
};

constexpr size_t kAhead = 8;  // rows prefetched ahead: the ids are random, each row a miss of its own

// Reads id k of the order once (it is shared memory a caller can write) and checks it before
// its row is touched. A prefetch of an out-of-range id is harmless: prefetches do not fault.
inline bool RowOf(const Plan& p, const uint32_t* ids, size_t k, size_t n, const uint8_t** row) {
  if (k + kAhead < n) __builtin_prefetch(p.table + static_cast<size_t>(ids[k + kAhead]) * p.stride);
  const uint32_t id = __atomic_load_n(ids + k, __ATOMIC_RELAXED);
  if (__builtin_expect(id >= p.records, 0)) return false;
  *row = p.table + static_cast<size_t>(id) * p.stride;
  return true;
}

// C columns of W bytes each (an int and a float field: C = 2, W = 8): every column's bytes
// of a row copied while it is in cache, each copy one load and one store. A loop over the
// columns with a switch on each width took 30 ms for a 1.28M-row epoch where this takes 18.
template <size_t W, size_t C>
size_t RowsFixed(const Plan& p, const uint32_t* ids, size_t n, uint8_t* const* out) {
  size_t offset[C];
  uint8_t* dst[C];
  for (size_t c = 0; c < C; c++) {
    offset[c] = p.columns[c].offset;
    dst[c] = out[c];
  }
  const uint8_t* row = nullptr;
  for (size_t k = 0; k < n; k++) {
    if (!RowOf(p, ids, k, n, &row)) return k;
    for (size_t c = 0; c < C; c++) std::memcpy(dst[c] + k * W, row + offset[c], W);
  }
  return n;
}

// Any other mix of columns: one pass per column (the later passes find the rows in cache).
template <size_t W>
size_t ColumnFixed(const Plan& p, size_t offset, const uint32_t* ids, size_t n, uint8_t* out, size_t width) {
  const uint8_t* row = nullptr;
  for (size_t k = 0; k < n; k++) {
    if (!RowOf(p, ids, k, n, &row)) return k;
    std::memcpy(out + k * (W ? W : width), row + offset, W ? W : width);
  }
  return n;
}

size_t RowsByColumn(const Plan& p, const uint32_t* ids, size_t n, uint8_t* const* out) {
  size_t done = n;
  for (size_t c = 0; c < p.columns.size(); c++) {
    const Column& col = p.columns[c];
    size_t d;
    switch (col.width) {
      case 1: d = ColumnFixed<1>(p, col.offset, ids, n, out[c], 1); break;
      case 2: d = ColumnFixed<2>(p, col.offset, ids, n, out[c], 2); break;
      case 4: d = ColumnFixed<4>(p, col.offset, ids, n, out[c], 4); break;
      case 8: d = ColumnFixed<8>(p, col.offset, ids, n, out[c], 8); break;
      case 16: d = ColumnFixed<16>(p, col.offset, ids, n, out[c], 16); break;
      default: d = ColumnFixed<0>(p, col.offset, ids, n, out[c], col.width);
    }
    if (d < done) done = d;
  }
  return done;
}

template <size_t W>
size_t RowsOfWidth(const Plan& p, const uint32_t* ids, size_t n, uint8_t* const* out) {
  switch (p.columns.size()) {
    case 1: return RowsFixed<W, 1>(p, ids, n, out);
    case 2: return RowsFixed<W, 2>(p, ids, n, out);
    case 3: return RowsFixed<W, 3>(p, ids, n, out);
    case 4: return RowsFixed<W, 4>(p, ids, n, out);
    default: return RowsByColumn(p, ids, n, out);
  }
}

// Copies rows ids[0, n) into the columns' slot starts `out`. Returns n, or the index of the
// first id outside the table.
size_t CopyRows(const Plan& p, const uint32_t* ids, size_t n, uint8_t* const* out) {
  const size_t w = p.columns[0].width;
  for (const Column& c : p.columns)
    if (c.width != w) return RowsByColumn(p, ids, n, out);
  switch (w) {
    case 4: return RowsOfWidth<4>(p, ids, n, out);
    case 8: return RowsOfWidth<8>(p, ids, n, out);
    default: return RowsByColumn(p, ids, n, out);
  }
}

bool IsWhole(double v) { return v >= 0 && v <= 9007199254740991.0 && v == static_cast<double>(static_cast<uint64_t>(v)); }

Plan* PlanOf(const Napi::CallbackInfo& info, const char* fn) {
  if (info.Length() < 1 || !info[0].IsExternal()) throw Napi::TypeError::New(info.Env(), std::string(fn) + ": not a gather plan");
  return info[0].As<Napi::External<Plan>>().Data();
}

}  // namespace

// gatherPlanCreate(table: Uint8Array, stride, columns: Float64Array [offset, width, slotBytes] × C,
//                  dsts: Uint8Array[] (C)) → External
Napi::Value GatherPlanCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[0].IsTypedArray() || !info[1].IsNumber() || !info[2].IsTypedArray() || !info[3].IsArray()) {
    throw Napi::TypeError::New(env, "gatherPlanCreate(table, stride, columns, dsts)");
  }
  auto table = info[0].As<Napi::TypedArray>();
  auto spec = info[2].As<Napi::TypedArray>();
  auto dsts = info[3].As<Napi::Array>();
  if (table.TypedArrayType() != napi_uint8_array || spec.TypedArrayType() != napi_float64_array) {
    throw Napi::TypeError::New(env, "gatherPlanCreate: expected Uint8Array table, Float64Array columns");
  }
  const double stride = info[1].As<Napi::Number>().DoubleValue();
  const size_t count = dsts.Length();
  if (!IsWhole(stride) || stride < 1 || spec.ElementLength() != 3 * count || count == 0) {
    throw Napi::RangeError::New(env, "gatherPlanCreate: bad stride or column count");
  }
  const double* s = spec.As<Napi::Float64Array>().Data();
  auto plan = std::make_unique<Plan>();
  plan->table = table.As<Napi::Uint8Array>().Data();
  plan->stride = static_cast<size_t>(stride);
  plan->records = table.ByteLength() / plan->stride;
  for (size_t c = 0; c < count; c++) {
    Napi::Value v = dsts.Get(static_cast<uint32_t>(c));
    if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
      throw Napi::TypeError::New(env, "gatherPlanCreate: dsts must be Uint8Arrays");
    }
    auto dst = v.As<Napi::Uint8Array>();
    const double offset = s[3 * c], width = s[3 * c + 1], slot = s[3 * c + 2];
    if (!IsWhole(offset) || !IsWhole(width) || !IsWhole(slot) || width < 1 || offset + width > stride || slot > dst.ByteLength()) {
      throw Napi::RangeError::New(env, "gatherPlanCreate: a column lies outside its record or its ring");
    }
    plan->columns.push_back(Column{static_cast<size_t>(offset), static_cast<size_t>(width), dst.Data(), dst.ByteLength(),
                                   static_cast<size_t>(slot)});
  }
  return Napi::External<Plan>::New(env, plan.release(), [](Napi::Env, Plan* p) { delete p; });
}

// gatherPlanOrder(plan, order: Uint32Array): the ids that runs index into.
Napi::Value GatherPlanOrder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Plan* plan = PlanOf(info, "gatherPlanOrder");
  if (info.Length() != 2 || !info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    throw Napi::TypeError::New(env, "gatherPlanOrder(plan, order: Uint32Array)");
  }
  auto order = info[1].As<Napi::Uint32Array>();
  plan->order = order.Data();
  plan->order_length = order.ElementLength();
  return env.Undefined();
}

// gatherPlanRun(plan, start, count, slot): rows order[start, start + count) into slot `slot`
// of every column. Returns -1, or the position in the order of an id outside the table.
Napi::Value GatherPlanRun(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Plan* plan = PlanOf(info, "gatherPlanRun");
  if (info.Length() != 4 || !info[1].IsNumber() || !info[2].IsNumber() || !info[3].IsNumber()) {
    throw Napi::TypeError::New(env, "gatherPlanRun(plan, start, count, slot)");
  }
  const double start = info[1].As<Napi::Number>().DoubleValue();
  const double count = info[2].As<Napi::Number>().DoubleValue();
  const double slot = info[3].As<Napi::Number>().DoubleValue();
  if (!IsWhole(start) || !IsWhole(count) || !IsWhole(slot) || start + count > static_cast<double>(plan->order_length)) {
    throw Napi::RangeError::New(env, "gatherPlanRun: rows outside the order");
  }
  constexpr size_t kMaxColumns = 64;
  if (plan->columns.size() > kMaxColumns) throw Napi::RangeError::New(env, "gatherPlanRun: too many columns");
  uint8_t* out[kMaxColumns];
  const size_t n = static_cast<size_t>(count);
  for (size_t c = 0; c < plan->columns.size(); c++) {
    const Column& col = plan->columns[c];
    const double first = slot * static_cast<double>(col.slot_bytes);
    if (static_cast<double>(n * col.width) > static_cast<double>(col.slot_bytes) ||
        first + static_cast<double>(col.slot_bytes) > static_cast<double>(col.dst_bytes)) {
      throw Napi::RangeError::New(env, "gatherPlanRun: rows outside the ring");
    }
    out[c] = col.dst + static_cast<size_t>(first);
  }
  const size_t done = CopyRows(*plan, plan->order + static_cast<size_t>(start), n, out);
  return Napi::Number::New(env, done == n ? -1.0 : start + static_cast<double>(done));
}

}  // namespace beton
