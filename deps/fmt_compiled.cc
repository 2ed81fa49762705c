// fmt's out-of-line functions, compiled into railkit instead of linked from
// Debian's libfmt.so (deps/CMakeLists.txt says why). format-inl.h defines the
// non-template functions; the templates that the headers declare extern for
// the library to provide are instantiated here for the character types used.
#include <fmt/format-inl.h>

namespace fmt::detail {

template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
template auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl<wchar_t>(locale_ref) -> wchar_t;
template void vformat_to<char>(buffer<char>&, string_view, basic_format_args<buffer_context<char>>,
                               locale_ref);

}  // namespace fmt::detail
