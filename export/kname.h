/* SPDX-License-Identifier: MIT */
/*
 * kname: the one naming rule for kernels in every view and export.
 *
 * A kernel has three names: the mangled one, the full demangled signature
 * (shown on demand: the kernel view, the ticket body), and the short
 * readable name every list, title and message uses:
 *
 *   - the function name with its namespaces, without the return type, the
 *     parameter list and any "(anonymous namespace)::";
 *   - template arguments elided as "<…>";
 *   - for a name libiberty could not demangle (the report holds the
 *     mangled name twice), a structural shortening of the mangled name:
 *     "_ZN17cutlass__5x_cudnn6KernelINS_4conv..." -> "cutlass__5x_cudnn::Kernel<…>";
 *   - unique within the report: instances sharing a short name are told
 *     apart by the first template argument that differs
 *     ("vectorized_elementwise_kernel<…, FillFunctor<float>, …>"), else by
 *     the kernel id ("…<…> #12");
 *   - when a place is too narrow, cut at a name boundary with "…", never
 *     silently mid-identifier.
 *
 * No function here allocates except kname_unique(); none touches a report.
 */
#ifndef GPUHIER_EXPORT_KNAME_H
#define GPUHIER_EXPORT_KNAME_H

#include <stddef.h>

/* The ellipsis every cut name carries (U+2026, 3 bytes, 1 column). */
#define KNAME_ELLIPSIS "\xe2\x80\xa6"

/*
 * Writes the short readable name of a kernel into buf (always
 * NUL-terminated, cut with KNAME_ELLIPSIS when it does not fit `size`).
 * `demangled` may be NULL or equal to `mangled` (not demangled); both
 * NULL gives "?". Returns buf.
 */
char *kname_short(const char *demangled, const char *mangled, char *buf, size_t size);

/*
 * Short names for n kernels of one report, unique among them.
 * `demangled[i]`, `mangled[i]` as for kname_short(); `ids[i]` the kernel
 * ids (used only when no template argument tells two apart). Fills
 * out[i] with new strings (free() each). Returns 0, or -1 when out of
 * memory (out[] then holds NULLs).
 */
int kname_unique(size_t n, const char *const *demangled, const char *const *mangled,
                 const long long *ids, char **out);

/*
 * Copies `name` into buf, cut to at most `cols` columns (a UTF-8
 * character is one column) at the last name boundary ("::", "<", ", ",
 * " ") that leaves room for KNAME_ELLIPSIS, else at `cols` - 1. Returns
 * 1 when it cut, 0 when the name fit.
 */
int kname_fit(const char *name, size_t cols, char *buf, size_t size);

/* The number of columns `s` takes (UTF-8 characters). */
size_t kname_cols(const char *s);

#endif
