#include "coll/layout.h"

namespace fabscope {

BufferLayout buffer_layout(const LayoutArgs& a) {
  const size_t r = static_cast<size_t>(a.rank);
  const LayoutCommon k{
      .n = static_cast<size_t>(a.nranks),
      .r = r,
      .c = a.counts.param,
      .is_root = a.rank == a.root,
      .in_off = a.in_place ? r * a.counts.send_inplace_offset : 0,
      .out_off = a.in_place ? a.inplace_output_offset : 0,
  };
  BufferLayout l;
  l.input_in_recv = a.in_place;
  info(a.coll).layout(a, k, l);
  return l;
}

}  // namespace fabscope
