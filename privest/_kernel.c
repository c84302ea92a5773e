/* privest._kernel: the update loop of IBU on a matrix, compiled (privest/estimators/_iteration.py, _iterate_blocks).
   (Also GIBU's pass over bit-packed reports, bits_pass and bits_sums, and local hashing's xxh32 table and membership,
   hash_table and hash_members: each described where it is defined below.)

   One call runs b IBU updates (free-will eq. 10) from row 0 of two buffers, T (theta^t) and M (m^t = G^T theta^t):
       ratio = w / M[j];  T[j+1] = T[j] * (G ratio);  M[j+1] = G^T T[j+1]        j = 0 .. b-1
   (an entry of T[j+1] below THETA_FLOOR set to 0, as numpy's iteration does: see THETA_FLOOR below).
   numpy needs four calls an iteration for this, and their overhead is most of an iteration's cost at k = 100.
   ibu_run runs these updates to IBU's stop in one call, with L^t = sum_z w[z] log m^t[z] after each (the kernel's own
   log, below, and the sum in order), and ibu_matrix a whole call of ibu on a matrix: the checks of A, the first
   product and ibu_run (see run_updates).

   Both products come from G alone (no transposed copy), a block of 16 rows at a time: the block's dot products with
   ratio give its entries of T[j+1], then its rows, scaled by them, are added to M[j+1] while the block is still in the
   cache. So G is read from memory once an update, where numpy's two matrix-vector products (and numba's) read it
   twice. Each output is a sum in a fixed order: (G ratio)_x over z = 0, 1, ... and (G^T theta)_z over x = 0, 1, ...,
   each term a multiply then an add (no fused multiply-add, no reassociation). So the result is the same bits whatever
   the path (AVX where the CPU has it, portable C otherwise), the CPU or the BLAS library, and numpy can check it
   (tests/test_estimators.py); it differs from numpy's own products (BLAS sums in another order) in the last bits.

   No numpy headers: the arrays come through the buffer protocol. Built by setup.py as an optional extension; without
   a C compiler privest runs the same iteration through numpy. Compiled with -ffp-contract=off (and the pragma below
   for clang), so that the compiler fuses no multiply and add. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF /* clang; GCC takes -ffp-contract=off */

/* One IBU update, reading G (k, m) row-major once: for each row x,
       theta_new[x] = (sum_z G[x, z] ratio[z]) * theta_old[x]      the sum over z = 0, 1, ... in order (then floored)
       m_new[z] += theta_new[x] G[x, z]                            for every z, the rows x = 0, 1, ... in order
   each sum starting from 0.0, a multiply then an add (no fused multiply-add, no reassociation). A block of rows is
   read from memory once and used for both products while it is in the cache. Portable C: four rows side by side
   (four independent sums), then the block's rows added to m_new one after another. */
#define BLOCK_ROWS 8

/* theta's floor (privest/estimators/_iteration.py, THETA_FLOOR): an updated entry below 2^-511, the square root of
   the smallest normal double, becomes 0. Such an entry is one the estimate drives to 0; kept, it turns subnormal, and
   every product with a subnormal costs 5-10x an operation. Its terms in m (below 2^-511 times an entry of G) lie far
   below the last bit of any m a reported column has, so the other entries, L and the iteration count keep the bits
   of the iteration without the floor (tests/test_estimators.py). */
#define THETA_FLOOR 0x1p-511

static inline double floored(double x) { return x < THETA_FLOOR ? 0.0 : x; }

/* m_new[z] += s[x] G[x, z] for the rows x0 <= x < x0 + rows, one row after another. */
static void add_rows_portable(const double *restrict G, const double *restrict s, double *restrict m_new,
                              Py_ssize_t x0, Py_ssize_t rows, Py_ssize_t m) {
    for (Py_ssize_t i = 0; i < rows; i++) {
        const double f = s[x0 + i], *row = G + (x0 + i) * m;
        for (Py_ssize_t z = 0; z < m; z++) m_new[z] += f * row[z];
    }
}

static void rows_update_portable(const double *restrict G, const double *restrict ratio,
                                 const double *restrict theta_old, double *restrict theta_new,
                                 double *restrict m_new, Py_ssize_t x0, Py_ssize_t rows, Py_ssize_t m) {
    Py_ssize_t i = 0;
    for (; i + 4 <= rows; i += 4) {
        const double *r0 = G + (x0 + i) * m, *r1 = r0 + m, *r2 = r1 + m, *r3 = r2 + m;
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
        for (Py_ssize_t z = 0; z < m; z++) {
            const double f = ratio[z];
            a0 += r0[z] * f;
            a1 += r1[z] * f;
            a2 += r2[z] * f;
            a3 += r3[z] * f;
        }
        theta_new[x0 + i] = floored(a0 * theta_old[x0 + i]);
        theta_new[x0 + i + 1] = floored(a1 * theta_old[x0 + i + 1]);
        theta_new[x0 + i + 2] = floored(a2 * theta_old[x0 + i + 2]);
        theta_new[x0 + i + 3] = floored(a3 * theta_old[x0 + i + 3]);
    }
    for (; i < rows; i++) {
        const double *row = G + (x0 + i) * m;
        double a = 0.0;
        for (Py_ssize_t z = 0; z < m; z++) a += row[z] * ratio[z];
        theta_new[x0 + i] = floored(a * theta_old[x0 + i]);
    }
    add_rows_portable(G, theta_new, m_new, x0, rows, m);
}

/* The dot product of one row with ratio in the other fixed order (``strided``, for large G, where privest 0.1 ran
   numpy's products and there are no earlier bits to keep): 16 partial sums, s[j] over z = j mod 16 in order, for the
   first m - m % 16 terms; then t[l] = (s[l] + s[4 + l]) + (s[8 + l] + s[12 + l]), (t[0] + t[1]) + (t[2] + t[3]);
   then the last m % 16 terms in order. Independent partial sums: no chain of dependent additions a row long. */
static double strided_dot_portable(const double *restrict row, const double *restrict ratio, Py_ssize_t m) {
    double s[16] = {0.0};
    const Py_ssize_t m16 = m - m % 16;
    for (Py_ssize_t z = 0; z < m16; z += 16)
        for (int j = 0; j < 16; j++) s[j] += row[z + j] * ratio[z + j];
    double t[4];
    for (int l = 0; l < 4; l++) t[l] = (s[l] + s[4 + l]) + (s[8 + l] + s[12 + l]);
    double total = (t[0] + t[1]) + (t[2] + t[3]);
    for (Py_ssize_t z = m16; z < m; z++) total += row[z] * ratio[z];
    return total;
}

static double (*strided_dot)(const double *restrict, const double *restrict, Py_ssize_t) = strided_dot_portable;

static void (*rows_update)(const double *restrict, const double *restrict, const double *restrict, double *restrict,
                           double *restrict, Py_ssize_t, Py_ssize_t, Py_ssize_t) = rows_update_portable;
static void (*add_rows)(const double *restrict, const double *restrict, double *restrict, Py_ssize_t, Py_ssize_t,
                        Py_ssize_t) = add_rows_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX_PATH 1

/* The same sums with AVX. The dot products: four rows in the four lanes of a vector (rows 0, 1, 2, 3 of the lanes
   from halves of rows 0 and 2, 1 and 3, then one unpack), two such vectors (8 rows) side by side, so that each lane
   still adds its row's terms in the order z = 0, 1, ...; the last m % 4 terms one lane at a time. Then the block's rows are added to
   m_new 32 outputs at a time (held in registers while the rows go by, in order), then 4, then one. The same
   products and sums in the same order as the portable path: the same bits. */
#define HALVES(r0, r2, z) _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd((r0) + (z))), _mm_loadu_pd((r2) + (z)), 1)
#define TRANSPOSED_STEP(acc, r0, r1, r2, r3, z)                                                                  \
    do {                                                                                                         \
        const __m256d h0 = HALVES(r0, r2, z), h1 = HALVES(r1, r3, z);                                            \
        const __m256d h2 = HALVES(r0, r2, (z) + 2), h3 = HALVES(r1, r3, (z) + 2);                                \
        acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_unpacklo_pd(h0, h1), f0));                                 \
        acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_unpackhi_pd(h0, h1), f1));                                 \
        acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_unpacklo_pd(h2, h3), f2));                                 \
        acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_unpackhi_pd(h2, h3), f3));                                 \
    } while (0)

__attribute__((target("avx"))) static void finish_rows_avx(__m256d acc, const double *restrict G,
                                                              const double *restrict ratio, Py_ssize_t x,
                                                              Py_ssize_t z, Py_ssize_t m,
                                                              const double *restrict theta_old,
                                                              double *restrict theta_new) {
    double lanes[4];
    _mm256_storeu_pd(lanes, acc);
    for (int c = 0; c < 4; c++) {
        const double *row = G + (x + c) * m;
        double a = lanes[c];
        for (Py_ssize_t j = z; j < m; j++) a += row[j] * ratio[j];
        theta_new[x + c] = floored(a * theta_old[x + c]);
    }
}

__attribute__((target("avx"))) static void add_rows_avx(const double *restrict G, const double *restrict theta_new,
                                                           double *restrict m_new, Py_ssize_t x0, Py_ssize_t rows,
                                                           Py_ssize_t m) {
    Py_ssize_t z = 0;
    for (; z + 32 <= m; z += 32) {
        double *out = m_new + z;
        __m256d s0 = _mm256_loadu_pd(out), s1 = _mm256_loadu_pd(out + 4), s2 = _mm256_loadu_pd(out + 8),
                s3 = _mm256_loadu_pd(out + 12), s4 = _mm256_loadu_pd(out + 16), s5 = _mm256_loadu_pd(out + 20),
                s6 = _mm256_loadu_pd(out + 24), s7 = _mm256_loadu_pd(out + 28);
        for (Py_ssize_t j = 0; j < rows; j++) {
            const __m256d f = _mm256_broadcast_sd(theta_new + x0 + j);
            const double *column = G + (x0 + j) * m + z;
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(f, _mm256_loadu_pd(column)));
            s1 = _mm256_add_pd(s1, _mm256_mul_pd(f, _mm256_loadu_pd(column + 4)));
            s2 = _mm256_add_pd(s2, _mm256_mul_pd(f, _mm256_loadu_pd(column + 8)));
            s3 = _mm256_add_pd(s3, _mm256_mul_pd(f, _mm256_loadu_pd(column + 12)));
            s4 = _mm256_add_pd(s4, _mm256_mul_pd(f, _mm256_loadu_pd(column + 16)));
            s5 = _mm256_add_pd(s5, _mm256_mul_pd(f, _mm256_loadu_pd(column + 20)));
            s6 = _mm256_add_pd(s6, _mm256_mul_pd(f, _mm256_loadu_pd(column + 24)));
            s7 = _mm256_add_pd(s7, _mm256_mul_pd(f, _mm256_loadu_pd(column + 28)));
        }
        _mm256_storeu_pd(out, s0);
        _mm256_storeu_pd(out + 4, s1);
        _mm256_storeu_pd(out + 8, s2);
        _mm256_storeu_pd(out + 12, s3);
        _mm256_storeu_pd(out + 16, s4);
        _mm256_storeu_pd(out + 20, s5);
        _mm256_storeu_pd(out + 24, s6);
        _mm256_storeu_pd(out + 28, s7);
    }
    for (; z + 4 <= m; z += 4) {
        __m256d s0 = _mm256_loadu_pd(m_new + z);
        for (Py_ssize_t j = 0; j < rows; j++)
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(_mm256_broadcast_sd(theta_new + x0 + j),
                                                 _mm256_loadu_pd(G + (x0 + j) * m + z)));
        _mm256_storeu_pd(m_new + z, s0);
    }
    for (; z < m; z++) {
        double s = m_new[z];
        for (Py_ssize_t j = 0; j < rows; j++) s += theta_new[x0 + j] * G[(x0 + j) * m + z];
        m_new[z] = s;
    }
}

__attribute__((target("avx"))) static double strided_dot_avx(const double *restrict row, const double *restrict ratio,
                                                              Py_ssize_t m) {
    __m256d v0 = _mm256_setzero_pd(), v1 = v0, v2 = v0, v3 = v0;
    const Py_ssize_t m16 = m - m % 16;
    for (Py_ssize_t z = 0; z < m16; z += 16) {
        v0 = _mm256_add_pd(v0, _mm256_mul_pd(_mm256_loadu_pd(row + z), _mm256_loadu_pd(ratio + z)));
        v1 = _mm256_add_pd(v1, _mm256_mul_pd(_mm256_loadu_pd(row + z + 4), _mm256_loadu_pd(ratio + z + 4)));
        v2 = _mm256_add_pd(v2, _mm256_mul_pd(_mm256_loadu_pd(row + z + 8), _mm256_loadu_pd(ratio + z + 8)));
        v3 = _mm256_add_pd(v3, _mm256_mul_pd(_mm256_loadu_pd(row + z + 12), _mm256_loadu_pd(ratio + z + 12)));
    }
    double t[4];
    _mm256_storeu_pd(t, _mm256_add_pd(_mm256_add_pd(v0, v1), _mm256_add_pd(v2, v3)));
    double total = (t[0] + t[1]) + (t[2] + t[3]);
    for (Py_ssize_t z = m16; z < m; z++) total += row[z] * ratio[z];
    return total;
}

__attribute__((target("avx"))) static void rows_update_avx(const double *restrict G, const double *restrict ratio,
                                                              const double *restrict theta_old,
                                                              double *restrict theta_new, double *restrict m_new,
                                                              Py_ssize_t x0, Py_ssize_t rows, Py_ssize_t m) {
    const Py_ssize_t m4 = m - m % 4;
    Py_ssize_t i = 0;
    for (; i + 8 <= rows; i += 8) {
        const double *r = G + (x0 + i) * m;
        __m256d a0 = _mm256_setzero_pd(), a1 = a0;
        for (Py_ssize_t z = 0; z < m4; z += 4) {
            const __m256d f0 = _mm256_broadcast_sd(ratio + z), f1 = _mm256_broadcast_sd(ratio + z + 1),
                          f2 = _mm256_broadcast_sd(ratio + z + 2), f3 = _mm256_broadcast_sd(ratio + z + 3);
            TRANSPOSED_STEP(a0, r, r + m, r + 2 * m, r + 3 * m, z);
            TRANSPOSED_STEP(a1, r + 4 * m, r + 5 * m, r + 6 * m, r + 7 * m, z);
        }
        finish_rows_avx(a0, G, ratio, x0 + i, m4, m, theta_old, theta_new);
        finish_rows_avx(a1, G, ratio, x0 + i + 4, m4, m, theta_old, theta_new);
    }
    for (; i + 4 <= rows; i += 4) {
        const double *r = G + (x0 + i) * m;
        __m256d a0 = _mm256_setzero_pd();
        for (Py_ssize_t z = 0; z < m4; z += 4) {
            const __m256d f0 = _mm256_broadcast_sd(ratio + z), f1 = _mm256_broadcast_sd(ratio + z + 1),
                          f2 = _mm256_broadcast_sd(ratio + z + 2), f3 = _mm256_broadcast_sd(ratio + z + 3);
            TRANSPOSED_STEP(a0, r, r + m, r + 2 * m, r + 3 * m, z);
        }
        finish_rows_avx(a0, G, ratio, x0 + i, m4, m, theta_old, theta_new);
    }
    for (; i < rows; i++) {
        const double *row = G + (x0 + i) * m;
        double a = 0.0;
        for (Py_ssize_t z = 0; z < m; z++) a += row[z] * ratio[z];
        theta_new[x0 + i] = floored(a * theta_old[x0 + i]);
    }
    add_rows_avx(G, theta_new, m_new, x0, rows, m);
}
#endif

/* One IBU update (free-will eq. 10) from theta_old and ratio = w / m_old (m_old = G^T theta_old) into theta_new and
   m_new, G read once. */
static void update_from_ratio(const double *G, const double *ratio, const double *theta_old, double *theta_new,
                              double *m_new, Py_ssize_t k, Py_ssize_t m, int strided) {
    for (Py_ssize_t z = 0; z < m; z++) m_new[z] = 0.0;
    for (Py_ssize_t x = 0; x < k; x += BLOCK_ROWS) {
        const Py_ssize_t rows = k - x < BLOCK_ROWS ? k - x : BLOCK_ROWS;
        if (strided) { /* each row's dot product on its own (one stream), then the block's rows into m_new */
            for (Py_ssize_t i = x; i < x + rows; i++)
                theta_new[i] = floored(strided_dot(G + i * m, ratio, m) * theta_old[i]);
            add_rows(G, theta_new, m_new, x, rows, m);
        } else {
            rows_update(G, ratio, theta_old, theta_new, m_new, x, rows, m);
        }
    }
}

/* update_from_ratio with ratio = w / m_old computed first. */
static void update_once(const double *G, const double *w, const double *theta_old, const double *m_old,
                        double *theta_new, double *m_new, double *ratio, Py_ssize_t k, Py_ssize_t m, int strided) {
    for (Py_ssize_t z = 0; z < m; z++) ratio[z] = w[z] / m_old[z];
    update_from_ratio(G, ratio, theta_old, theta_new, m_new, k, m, strided);
}

static void updates(const double *G, const double *w, double *T, double *M, double *ratio, Py_ssize_t k,
                    Py_ssize_t m, Py_ssize_t b, int strided) {
    for (Py_ssize_t j = 0; j < b; j++)
        update_once(G, w, T + j * k, M + j * m, T + (j + 1) * k, M + (j + 1) * m, ratio, k, m, strided);
}

/* GIBU on bit-packed set reports (privest/estimators/_bits.py, privest.groups.BitGroup): one pass over the rows of
   one group, P(report_i | x) = exp(log_scale_i) (high if x in S_i else low), S_i the bits of row i (B bytes):
       s_i = sum_b T[b, byte_ib]      T[b, v] = theta summed over the bits of byte value v at byte position b
       d_i = low + gap s_i;   L += w_i log d_i;   r_i = w_i / d_i;   R += r_i;   H[b, byte_ib] += r_i gap
   (H folded back to bits by the caller gives sum_{i: x in S_i} r_i gap for every secret x). Rows go by in blocks of
   BIT_ROWS, and within a block of rows, the byte positions in blocks of BIT_COLUMNS (so that the block's part of T
   or H stays in the L1 cache while the rows go by): the lookups, then the block's logs (a log that vectorises,
   below), then the divisions, then the histogram adds. Every sum in a fixed order (s_i: over the column blocks in
   order, each block's eight terms as ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)), a last short block in
   order; L and R over i in order), each term a multiply then an add: the same bits on every path. */
#define BIT_ROWS 256
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BYTE(v, c) (((v) >> (56 - 8 * (c))) & 255)
#else
#define BYTE(v, c) (((v) >> (8 * (c))) & 255)
#endif
#define BIT_COLUMNS 8 /* byte positions a block: its tables T and H, 16 KB each, stay in the L1 cache */

/* log(x) for positive normal x, fdlibm's e_log.c (error below 1 ulp) without its branches, so that the compiler
   vectorises it: x = 2^k z with z in [0.7071, 1.4142) by integer operations on the bits, f = z - 1 (exact),
   s = f / (2 + f), log(1 + f) = f - (hfsq - s (hfsq + R(s^2))). A subnormal, zero, infinite or NaN x is libm's. */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define LOG_BODY                                                                                                   \
    for (Py_ssize_t i = 0; i < n; i++) {                                                                         \
        uint64_t u;                                                                                              \
        memcpy(&u, x + i, 8);                                                                                    \
        const uint64_t ix = u - 0x3fe6a09e667f3bcdULL, top = ix & 0xfff0000000000000ULL, iz = u - top;           \
        const uint64_t kb = 0x4330000000000000ULL | (((ix >> 52) + 2048) & 4095);                                \
        double z, k;                                                                                             \
        memcpy(&z, &iz, 8);                                                                                      \
        memcpy(&k, &kb, 8);                                                                                      \
        k = (k - 4503599627370496.0) - 2048.0;                                                                   \
        const double f = z - 1.0, s = f / (2.0 + f), zz = s * s, ww = zz * zz;                                   \
        const double t1 = ww * (3.999999999940941908e-01 +                                                       \
                                ww * (2.222219843214978396e-01 + ww * 1.531383769920937332e-01));                \
        const double t2 = zz * (6.666666666666735130e-01 +                                                       \
                                ww * (2.857142874366239149e-01 +                                                 \
                                      ww * (1.818357216161805012e-01 + ww * 1.479819860511658591e-01)));         \
        const double hfsq = 0.5 * f * f;                                                                         \
        out[i] = k * LN2_HI - ((hfsq - (s * (hfsq + (t2 + t1)) + k * LN2_LO)) - f);                              \
    }

/* Whether every x is a positive normal number (a NaN is not): an OR of the comparisons, which vectorises. */
#define NORMAL_BODY                                                                                              \
    int bad = 0;                                                                                                 \
    for (Py_ssize_t i = 0; i < n; i++)                                                                           \
        bad |= !(x[i] >= 2.2250738585072014e-308) | !(x[i] <= 1.7976931348623157e308);                          \
    return !bad;

/* log_block: out = log(x) by LOG_BODY, and whether every x was a positive normal number (else libm's log must
   replace the others). */
static int log_block_portable(const double *restrict x, double *restrict out, Py_ssize_t n) { LOG_BODY NORMAL_BODY }

static int (*log_block)(const double *restrict, double *restrict, Py_ssize_t) = log_block_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) static int log_block_avx2(const double *restrict x, double *restrict out,
                                                           Py_ssize_t n) { LOG_BODY NORMAL_BODY }
#endif

/* log_block, then libm's log where x is not a positive normal number. */
static void logs_of(const double *restrict x, double *restrict out, Py_ssize_t n) {
    if (!log_block(x, out, n))
        for (Py_ssize_t i = 0; i < n; i++)
            if (!(x[i] >= 2.2250738585072014e-308 && x[i] <= 1.7976931348623157e308)) out[i] = log(x[i]);
}

/* Hb[bytes[i B]] += x[i] for the rows i of a block, for a byte position whose value repeats from row to row (the
   leading bytes of sorted distinct reports): the entry's running sum stays in a register while the value repeats,
   where the plain loop would store it and load it back every row (a chain of store-to-load forwarding, about ten
   cycles a row). The same additions in the same order: the same bits. */
static void add_carried(const uint8_t *restrict bytes, Py_ssize_t B, const double *restrict x, double *restrict Hb,
                        Py_ssize_t rows) {
    unsigned current = bytes[0];
    double sum = Hb[current];
    for (Py_ssize_t i = 0; i < rows; i++) {
        const unsigned v = bytes[i * B];
        if (v != current) {
            Hb[current] = sum;
            current = v;
            sum = Hb[v];
        }
        sum += x[i];
    }
    Hb[current] = sum;
}

/* The lookups of a short block of C byte positions: s_i += ((0 + T[0, byte_i0]) + T[1, byte_i1]) + ... */
#define SHORT_LOOKUPS(C)                                                                                         \
    case C:                                                                                                      \
        for (Py_ssize_t i = 0; i < rows; i++) {                                                                  \
            const uint8_t *row = chunk + i * B + c0;                                                             \
            double a = 0.0;                                                                                      \
            for (int c = 0; c < (C); c++) a += Tc[c * 256 + row[c]];                                             \
            s[i] += a;                                                                                           \
        }                                                                                                        \
        break;

static void bits_rows(const uint8_t *restrict bits, const double *restrict w, const double *restrict T,
                      double *restrict H, Py_ssize_t m, Py_ssize_t B, double low, double gap, uint64_t carry,
                      double *L_out, double *R_out) {
    double s[BIT_ROWS], d[BIT_ROWS], logs[BIT_ROWS], rg[BIT_ROWS], L = 0.0, R = 0.0;
    for (Py_ssize_t i0 = 0; i0 < m; i0 += BIT_ROWS) {
        const Py_ssize_t rows = m - i0 < BIT_ROWS ? m - i0 : BIT_ROWS;
        const uint8_t *chunk = bits + i0 * B;
        for (Py_ssize_t i = 0; i < rows; i++) s[i] = 0.0;
        for (Py_ssize_t c0 = 0; c0 < B; c0 += BIT_COLUMNS) { /* the lookups, one block of byte positions at a time */
            const Py_ssize_t columns = B - c0 < BIT_COLUMNS ? B - c0 : BIT_COLUMNS;
            const double *restrict Tc = T + c0 * 256;
            if (columns == BIT_COLUMNS)
                for (Py_ssize_t i = 0; i < rows; i++) {
                    uint64_t v; /* the eight bytes at once, byte c at bits 8c..8c+7 on a little-endian CPU */
                    memcpy(&v, chunk + i * B + c0, 8);
                    s[i] += ((Tc[BYTE(v, 0)] + Tc[256 + BYTE(v, 1)]) + (Tc[512 + BYTE(v, 2)] + Tc[768 + BYTE(v, 3)])) +
                            ((Tc[1024 + BYTE(v, 4)] + Tc[1280 + BYTE(v, 5)]) +
                             (Tc[1536 + BYTE(v, 6)] + Tc[1792 + BYTE(v, 7)]));
                }
            else /* a short block: its count of byte positions a constant of the loop, so that it unrolls */
                switch (columns) { SHORT_LOOKUPS(1) SHORT_LOOKUPS(2) SHORT_LOOKUPS(3) SHORT_LOOKUPS(4) SHORT_LOOKUPS(5)
                                   SHORT_LOOKUPS(6) SHORT_LOOKUPS(7) }
        }
        for (Py_ssize_t i = 0; i < rows; i++) d[i] = low + gap * s[i];
        logs_of(d, logs, rows);
        for (Py_ssize_t i = 0; i < rows; i++) {
            const double wi = w[i0 + i], r = wi / d[i];
            rg[i] = r * gap;
            L += wi * logs[i];
            R += r;
        }
        for (Py_ssize_t c0 = 0; c0 < B; c0 += BIT_COLUMNS) { /* the histograms, block by block */
            const Py_ssize_t columns = B - c0 < BIT_COLUMNS ? B - c0 : BIT_COLUMNS;
            double *restrict Hc = H + c0 * 256;
            if (columns == BIT_COLUMNS)
                for (Py_ssize_t i = 0; i < rows; i++) {
                    uint64_t v;
                    memcpy(&v, chunk + i * B + c0, 8);
                    const double x = rg[i];
                    for (int c = 0; c < 8; c++) Hc[c * 256 + BYTE(v, c)] += x;
                }
            else /* a short block (RAPPOR's 3 bytes at k = 20), one byte position at a time */
                for (Py_ssize_t c = 0; c < columns; c++) {
                    const uint8_t *restrict bytes = chunk + c0 + c;
                    double *restrict Hb = Hc + c * 256;
                    if (c0 + c < 64 && (carry >> (c0 + c)) & 1)
                        add_carried(bytes, B, rg, Hb, rows);
                    else
                        for (Py_ssize_t i = 0; i < rows; i++) Hb[bytes[i * B]] += rg[i];
                }
        }
    }
    *L_out = L, *R_out = R;
}

/* The same pass with the update's per-secret sums summed directly (privest/estimators/_bits.py, bits_sums), by
   tables over groups of 8 rows rather than histograms over bytes (the "four Russians" turned on its side). Rows go by
   in blocks of SUM_ROWS, their bytes copied into planes of 8 byte positions (each plane read densely by the lookups
   while its 16 KB of T stays in the L1 cache; the next block prefetched meanwhile): s_i, d_i, L, R and r_i gap exactly
   as bits_rows computes them (the same sums in the same order: the same bits). Then, a block of GROUP_ROWS rows at a
   time (copied with zero padding to Bq = B rounded up to 4 bytes and to whole groups where they are not already so),
   for each group g of 8 rows,
       U_g[v] = sum_{j in v} r_{8g+j} gap      v = 0 .. 255, built by doubling: U_g[2^j + v] = U_g[v] + r_{8g+j} gap
   and the rows' bits transposed, so that secret x's byte over the group's rows, t_gx (bit j: x in S_{8g+j}), indexes
   U_g: the update's sum at x gains U_g[t_gx], one lookup and one add per secret and 8 rows (the histograms' one store
   per byte and row is what bound bits_rows). The secrets go by 8 at a time in registers over the block's groups.
   Each secret's sum is in a fixed order (its groups in row order, each U_g entry over its rows in order j = 0 .. 7),
   another order than bits_rows' histograms then fold, so the two differ in the last bits. The transposed bytes of a
   group are held in a permuted order, position p = 32 q + 4 c + b for secret x = 32 q + 8 b + c, which is what the
   AVX2 transposition (vpshufb, vpermd, then 8 movemasks of the bytes shifted left one bit at a time) writes; the
   portable one writes the same bytes (a multiply gathering one bit of each of 8 bytes). Both paths: the same bits. */
#define SUM_ROWS 512 /* rows a block for the lookups */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch((address), 0, 2)
#else
#define PREFETCH(address) ((void)0)
#endif
#define GROUP_ROWS 64 /* rows a block for the update's sums, a multiple of 8: its tables stay in the L1 cache */

static void transpose_groups_portable(const uint8_t *restrict rows, uint8_t *restrict t, Py_ssize_t groups,
                                      Py_ssize_t Bq) {
    for (Py_ssize_t g = 0; g < groups; g++) {
        const uint8_t *group = rows + 8 * g * Bq;
        uint8_t *out = t + 8 * g * Bq;
        for (Py_ssize_t b = 0; b < Bq; b++) {
            uint64_t x = 0; /* byte j: row j's byte b */
            for (int j = 0; j < 8; j++) x |= (uint64_t)group[j * Bq + b] << (8 * j);
            uint8_t *o = out + 32 * (b >> 2) + (b & 3);
            for (int c = 0; c < 8; c++) /* bit 7 - c of each byte, gathered into bits 56 + j by the multiply */
                o[4 * c] = (uint8_t)((((x >> (7 - c)) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56);
        }
    }
}

static void (*transpose_groups)(const uint8_t *restrict, uint8_t *restrict, Py_ssize_t, Py_ssize_t) =
    transpose_groups_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) static void transpose_groups_avx2(const uint8_t *restrict rows, uint8_t *restrict t,
                                                                   Py_ssize_t groups, Py_ssize_t Bq) {
    const __m256i within = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                            0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i across = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (Py_ssize_t g = 0; g < groups; g++) {
        const uint8_t *group = rows + 8 * g * Bq;
        uint8_t *out = t + 8 * g * Bq;
        for (Py_ssize_t q = 0; q < Bq; q += 4) {
            int32_t word[8]; /* row j's bytes q .. q + 3 */
            for (int j = 0; j < 8; j++) memcpy(word + j, group + j * Bq + q, 4);
            __m256i v = _mm256_setr_epi32(word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]);
            v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, within), across); /* byte 8 b + j: row j's q + b */
            for (int c = 0; c < 8; c++) {
                const int mask = _mm256_movemask_epi8(v); /* bit 8 b + j: bit 7 - c of row j's byte q + b */
                memcpy(out + 8 * q + 4 * c, &mask, 4);
                v = _mm256_add_epi8(v, v);
            }
        }
    }
}
#endif

/* The bytes of a block of rows (row i at chunk + i B) as planes of 8 byte positions: bytes c0 .. c0 + 7 of row i at
   planes + c0 rows + 8 i, the last B % 8 bytes of row i at planes + (B - B % 8) rows + 8 i. copy_words: the words
   at positions first, first + 8, ... below end (multiples of 8) of rows from .. rows - 1. */
static void copy_words(const uint8_t *restrict chunk, uint8_t *restrict planes, Py_ssize_t rows, Py_ssize_t B,
                       Py_ssize_t first, Py_ssize_t end, Py_ssize_t from) {
    for (Py_ssize_t c0 = first; c0 < end; c0 += 8)
        for (Py_ssize_t i = from; i < rows; i++) memcpy(planes + c0 * rows + 8 * i, chunk + i * B + c0, 8);
}

static void copy_last_bytes(const uint8_t *restrict chunk, uint8_t *restrict planes, Py_ssize_t rows, Py_ssize_t B) {
    const Py_ssize_t whole = B & ~(Py_ssize_t)7;
    if (whole < B)
        for (Py_ssize_t i = 0; i < rows; i++) memcpy(planes + whole * rows + 8 * i, chunk + i * B + whole, B - whole);
}

static void copy_planes_portable(const uint8_t *restrict chunk, uint8_t *restrict planes, Py_ssize_t rows,
                                 Py_ssize_t B) {
    copy_words(chunk, planes, rows, B, 0, B & ~(Py_ssize_t)7, 0);
    copy_last_bytes(chunk, planes, rows, B);
}

static void (*copy_planes)(const uint8_t *restrict, uint8_t *restrict, Py_ssize_t, Py_ssize_t) = copy_planes_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The same bytes with AVX-512: 8 rows' 64 bytes at a time (8 loads), their 8 x 8 words of 8 bytes transposed in
   registers (three rounds of 8 shuffles) so that each plane gets the 8 rows' words in one store, where the portable
   copy moves each row's words alone (at k = 1024, 10^6 rows: 26 against 48 clock ticks a row, of about 250 for the
   whole pass); the rest (positions past the last whole 64, rows past the last whole 8, the last B % 8 bytes) as the
   portable copy. */
__attribute__((target("avx512f"))) static void copy_planes_avx512(const uint8_t *restrict chunk,
                                                                   uint8_t *restrict planes, Py_ssize_t rows,
                                                                   Py_ssize_t B) {
    const Py_ssize_t wide = B & ~(Py_ssize_t)63, rows8 = rows & ~(Py_ssize_t)7;
    for (Py_ssize_t i = 0; i < rows8; i += 8)
        for (Py_ssize_t c = 0; c < wide; c += 64) {
            __m512i r[8], u[8], v[8];
            for (int j = 0; j < 8; j++) r[j] = _mm512_loadu_si512(chunk + (i + j) * B + c);
            for (int j = 0; j < 8; j += 2) /* u_j: words 0, 2, 4, 6 of rows j and j + 1; u_j+1: words 1, 3, 5, 7 */
                u[j] = _mm512_unpacklo_epi64(r[j], r[j + 1]), u[j + 1] = _mm512_unpackhi_epi64(r[j], r[j + 1]);
            for (int j = 0; j < 2; j++) { /* v_q: words q and q + 4 of rows 0-3 (v_q+4: of rows 4-7), q = 0 .. 3 */
                v[j] = _mm512_shuffle_i64x2(u[j], u[j + 2], 0x88), v[j + 2] = _mm512_shuffle_i64x2(u[j], u[j + 2], 0xDD);
                v[j + 4] = _mm512_shuffle_i64x2(u[j + 4], u[j + 6], 0x88);
                v[j + 6] = _mm512_shuffle_i64x2(u[j + 4], u[j + 6], 0xDD);
            }
            for (int q = 0; q < 4; q++) { /* word q and q + 4 of rows 0-7 */
                _mm512_storeu_si512(planes + (c + 8 * q) * rows + 8 * i, _mm512_shuffle_i64x2(v[q], v[q + 4], 0x88));
                _mm512_storeu_si512(planes + (c + 8 * q + 32) * rows + 8 * i,
                                    _mm512_shuffle_i64x2(v[q], v[q + 4], 0xDD));
            }
        }
    copy_words(chunk, planes, rows, B, wide, B & ~(Py_ssize_t)7, 0); /* past the last whole 64, every row */
    copy_words(chunk, planes, rows, B, 0, wide, rows8);              /* the rows past the last whole 8 */
    copy_last_bytes(chunk, planes, rows, B);
}
#endif

/* s_i = sum_b T[b, byte_ib] for the rows from <= i < rows of a block, in bits_rows' order, from the block's bytes held
   as planes: the eight bytes c0 .. c0 + 7 of row i at planes + 8 (c0 rows + i), so that each plane is read densely
   while its part of T (16 KB) stays in the L1 cache, and T, read once a block of SUM_ROWS rows, costs little of the L2
   cache's bandwidth.
   Not vectorised by GCC (its SSE2 version, two rows at a time with the bytes moved out of vector registers, is
   slower). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
static void sums_of_planes(const uint8_t *restrict planes, const double *restrict T, double *restrict s,
                           Py_ssize_t from, Py_ssize_t rows, Py_ssize_t B) {
    for (Py_ssize_t i = from; i < rows; i++) s[i] = 0.0;
    for (Py_ssize_t c0 = 0; c0 < B; c0 += BIT_COLUMNS) {
        const Py_ssize_t columns = B - c0 < BIT_COLUMNS ? B - c0 : BIT_COLUMNS;
        const double *restrict Tc = T + c0 * 256;
        const uint8_t *restrict plane = planes + c0 * rows;
        if (columns == BIT_COLUMNS)
            for (Py_ssize_t i = from; i < rows; i++) {
                uint64_t v;
                memcpy(&v, plane + 8 * i, 8);
                s[i] += ((Tc[BYTE(v, 0)] + Tc[256 + BYTE(v, 1)]) + (Tc[512 + BYTE(v, 2)] + Tc[768 + BYTE(v, 3)])) +
                        ((Tc[1024 + BYTE(v, 4)] + Tc[1280 + BYTE(v, 5)]) +
                         (Tc[1536 + BYTE(v, 6)] + Tc[1792 + BYTE(v, 7)]));
            }
        else
            for (Py_ssize_t i = from; i < rows; i++) {
                const uint8_t *row = plane + 8 * i;
                double a = 0.0;
                for (Py_ssize_t c = 0; c < columns; c++) a += Tc[c * 256 + row[c]];
                s[i] += a;
            }
    }
}

/* U_g[v] = U_lo[v & 15] + U_hi[v >> 4] (v = 0 .. 255) for the groups g < groups: U_lo[u] the sum of r[8 g + j] over
   the bits j of u (the group's rows 0-3), U_hi[u] that of r[8 g + 4 + j] (rows 4-7), each by doubling,
   H[2^j + u] = H[u] + r[j] for u < 2^j (NIBBLE_SUMS). The halves are what the AVX-512 path looks up (16 entries, two
   registers each) and adds, the same sum as the one entry of U. */
#define NIBBLE_SUMS(H, r)                                                                                          \
    do {                                                                                                         \
        (H)[0] = 0.0, (H)[1] = (r)[0], (H)[2] = (r)[1], (H)[3] = (r)[0] + (r)[1];                                \
        for (int u = 0; u < 4; u++) (H)[4 + u] = (H)[u] + (r)[2];                                                \
        for (int u = 0; u < 8; u++) (H)[8 + u] = (H)[u] + (r)[3];                                                \
    } while (0)

#define SUBSET_SUMS_BODY                                                                                           \
    for (Py_ssize_t g = 0; g < groups; g++) {                                                                    \
        double *restrict U = tables + 256 * g, halves[32];                                                       \
        NIBBLE_SUMS(halves, rg + 8 * g);                                                                         \
        NIBBLE_SUMS(halves + 16, rg + 8 * g + 4);                                                                \
        for (int h = 0; h < 16; h++)                                                                             \
            for (int u = 0; u < 16; u++) U[16 * h + u] = halves[u] + halves[16 + h];                             \
    }

static void subset_sums_portable(const double *restrict rg, double *restrict tables, Py_ssize_t groups) {
    SUBSET_SUMS_BODY
}

static void (*subset_sums)(const double *restrict, double *restrict, Py_ssize_t) = subset_sums_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) static void subset_sums_avx2(const double *restrict rg, double *restrict tables,
                                                              Py_ssize_t groups) {
    SUBSET_SUMS_BODY
}
#endif

/* The update's sums of a block of at most GROUP_ROWS rows (row i at rows + i B) into the permuted sums acc, from their
   r_i gap in rg (zero past the block's rows). */
static void add_group_sums(const uint8_t *restrict rows, const double *restrict rg, Py_ssize_t count, Py_ssize_t B,
                           uint8_t *restrict pad, uint8_t *restrict t, double *restrict tables, double *restrict acc) {
    const Py_ssize_t Bq = (B + 3) & ~(Py_ssize_t)3, P = 8 * Bq, groups = (count + 7) / 8;
    if (Bq != B || count != 8 * groups) { /* a padded copy: zero bytes to Bq a row, zero rows to whole groups */
        memset(pad, 0, 8 * groups * Bq);
        for (Py_ssize_t i = 0; i < count; i++) memcpy(pad + i * Bq, rows + i * B, B);
        rows = pad;
    }
    subset_sums(rg, tables, groups);
    transpose_groups(rows, t, groups, Bq);
    for (Py_ssize_t p0 = 0; p0 < P; p0 += 8) { /* 8 positions in registers over the groups in order */
        double a0 = acc[p0], a1 = acc[p0 + 1], a2 = acc[p0 + 2], a3 = acc[p0 + 3], a4 = acc[p0 + 4],
               a5 = acc[p0 + 5], a6 = acc[p0 + 6], a7 = acc[p0 + 7];
        for (Py_ssize_t g = 0; g < groups; g++) {
            const double *restrict U = tables + 256 * g;
            uint64_t v;
            memcpy(&v, t + g * P + p0, 8);
            a0 += U[BYTE(v, 0)], a1 += U[BYTE(v, 1)], a2 += U[BYTE(v, 2)], a3 += U[BYTE(v, 3)];
            a4 += U[BYTE(v, 4)], a5 += U[BYTE(v, 5)], a6 += U[BYTE(v, 6)], a7 += U[BYTE(v, 7)];
        }
        acc[p0] = a0, acc[p0 + 1] = a1, acc[p0 + 2] = a2, acc[p0 + 3] = a3;
        acc[p0 + 4] = a4, acc[p0 + 5] = a5, acc[p0 + 6] = a6, acc[p0 + 7] = a7;
    }
}

/* The direct sums with AVX-512 (with VBMI and GFNI: Ice Lake and later, Zen 4), for B a multiple of 8: the lookups
   of both halves, 8 rows or 8 secrets at a time, by two-register permutes (vpermi2pd: 8 lookups in a 16-entry table,
   one instruction), where the scalar paths make one load a lookup, which bound them (about 250 clock ticks a row at
   k = 1024). Each table of 256 entries is split by nibbles: T[b, v] = N[2 b, v & 15] + N[2 b + 1, v >> 4] (the caller's
   nibble tables N, from which bits_sums builds T), U_g[v] = U_lo[v & 15] + U_hi[v >> 4] (NIBBLE_SUMS); the two halves
   are looked up and added, the same sum as T's or U's one entry, so every sum is the portable path's, in its order:
   the same bits.
   sums_of_planes_nibbles: s_i for the rows of a block, 8 rows a vector (a plane's 8 byte positions of 8 rows are 64
   consecutive bytes), the byte v of row i at position b indexing by its two nibbles (v >> 8 b and v >> 8 b + 4 in
   the row's 64 bits: the permute reads an index's low 4 bits); the rows past the last whole 8 as the portable path.
   group_sums_nibbles: the update's sums, each group of 8 rows transposed in registers (a byte permute brings the
   8 rows' bytes of one position together, then an affine transform over GF(2) transposes each 8 x 8 bit block), so
   that byte i of the 8 bytes of position b holds secret 8 b + i's bits over the group's rows (bit j: row j); each
   plane's 64 secrets in 8 registers over the groups in order, into acc in the order 8 c0 + 8 m + b (secret
   8 c0 + 8 b + m). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NIBBLE_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi,gfni")))

NIBBLE_TARGET static inline __m512d nibble_lookup(const double *restrict table, __m512i index) {
    return _mm512_permutex2var_pd(_mm512_loadu_pd(table), index, _mm512_loadu_pd(table + 8));
}

/* Byte b's two lookups for the R vectors of rows in v, into t (each the same sum as T[b, v_b]). */
#define BYTE_LOOKUPS(b)                                                                                            \
    do {                                                                                                         \
        const __m512d low0 = _mm512_loadu_pd(Nc + 32 * (b)), low1 = _mm512_loadu_pd(Nc + 32 * (b) + 8),         \
                      high0 = _mm512_loadu_pd(Nc + 32 * (b) + 16), high1 = _mm512_loadu_pd(Nc + 32 * (b) + 24);  \
        for (int r = 0; r < R; r++)                                                                              \
            t[r] = _mm512_add_pd(_mm512_permutex2var_pd(low0, _mm512_srli_epi64(v[r], 8 * (b)), low1),          \
                                 _mm512_permutex2var_pd(high0, _mm512_srli_epi64(v[r], 8 * (b) + 4), high1));    \
    } while (0)

/* s_i for R vectors of 8 rows from row i, the tables of each byte position loaded once for all of them; each row's
   plane sum ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)) added to s_i, as sums_of_planes. */
NIBBLE_TARGET __attribute__((always_inline)) static inline void plane_sums_of_vectors(
    const uint8_t *restrict planes, const double *restrict N, double *restrict s, Py_ssize_t i, Py_ssize_t rows,
    Py_ssize_t B, const int R, const uint8_t *ahead, Py_ssize_t ahead_bytes) {
    __m512d sum[4], left[4], right[4], t[4];
    for (int r = 0; r < R; r++) sum[r] = _mm512_setzero_pd();
    for (Py_ssize_t c0 = 0; c0 < B; c0 += 8) {
        const double *restrict Nc = N + 32 * c0;
        for (Py_ssize_t j = c0 * 8 * R; j < (c0 + 8) * 8 * R && j < ahead_bytes; j += 64) /* R lines a plane */
            PREFETCH(ahead + j);
        __m512i v[4];
        for (int r = 0; r < R; r++) v[r] = _mm512_loadu_si512(planes + c0 * rows + 8 * (i + 8 * r));
        BYTE_LOOKUPS(0);
        for (int r = 0; r < R; r++) left[r] = t[r];
        BYTE_LOOKUPS(1);
        for (int r = 0; r < R; r++) left[r] = _mm512_add_pd(left[r], t[r]);
        BYTE_LOOKUPS(2);
        for (int r = 0; r < R; r++) right[r] = t[r];
        BYTE_LOOKUPS(3);
        for (int r = 0; r < R; r++) left[r] = _mm512_add_pd(left[r], _mm512_add_pd(right[r], t[r]));
        BYTE_LOOKUPS(4);
        for (int r = 0; r < R; r++) right[r] = t[r];
        BYTE_LOOKUPS(5);
        for (int r = 0; r < R; r++) right[r] = _mm512_add_pd(right[r], t[r]);
        BYTE_LOOKUPS(6);
        __m512d pair[4];
        for (int r = 0; r < R; r++) pair[r] = t[r];
        BYTE_LOOKUPS(7);
        for (int r = 0; r < R; r++)
            sum[r] = _mm512_add_pd(sum[r],
                                   _mm512_add_pd(left[r], _mm512_add_pd(right[r], _mm512_add_pd(pair[r], t[r]))));
    }
    for (int r = 0; r < R; r++) _mm512_storeu_pd(s + i + 8 * r, sum[r]);
}

/* s_i for the rows of a block, and the next block's bytes (ahead_bytes from ahead) prefetched a line or so a plane,
   between the lookups, where the portable path asks for the whole block at once: measured faster (the lookups hide
   the reads from memory). */
NIBBLE_TARGET static void sums_of_planes_nibbles(const uint8_t *restrict planes, const double *restrict N,
                                                 const double *restrict T, double *restrict s, Py_ssize_t rows,
                                                 Py_ssize_t B, const uint8_t *ahead, Py_ssize_t ahead_bytes) {
    const Py_ssize_t rows32 = rows & ~(Py_ssize_t)31, rows8 = rows & ~(Py_ssize_t)7;
    for (Py_ssize_t i = 0; i < rows32; i += 32)
        plane_sums_of_vectors(planes, N, s, i, rows, B, 4, ahead + i * B, ahead_bytes - i * B);
    for (Py_ssize_t i = rows32; i < rows8; i += 8)
        plane_sums_of_vectors(planes, N, s, i, rows, B, 1, ahead + i * B, ahead_bytes - i * B);
    sums_of_planes(planes, T, s, rows8, rows, B); /* the rows past the last whole 8 */
}

NIBBLE_TARGET static void group_sums_nibbles(const uint8_t *restrict planes, const double *restrict rg,
                                             Py_ssize_t rows, Py_ssize_t B, double *restrict halves,
                                             double *restrict acc) {
    const Py_ssize_t groups = (rows + 7) / 8, whole = rows / 8;
    for (Py_ssize_t g = 0; g < groups; g++) {
        NIBBLE_SUMS(halves + 32 * g, rg + 8 * g);
        NIBBLE_SUMS(halves + 32 * g + 16, rg + 8 * g + 4);
    }
    uint8_t order[64]; /* byte 8 b + j: row 7 - j's byte at position b, so that the transform puts row j at bit j */
    for (int b = 0; b < 8; b++)
        for (int j = 0; j < 8; j++) order[8 * b + j] = (uint8_t)(8 * (7 - j) + b);
    const __m512i gather = _mm512_loadu_si512(order);
    const __m512i bit_of = _mm512_set1_epi64(0x0102040810204080LL); /* byte i: bit 7 - i (secret 8 b + i's) */
    const __mmask64 last = whole < groups ? (((__mmask64)1 << (8 * (rows - 8 * whole))) - 1) : 0;
    for (Py_ssize_t c0 = 0; c0 < B; c0 += 8) {
        double *restrict a = acc + 8 * c0;
        const uint8_t *restrict plane = planes + c0 * rows;
        __m512d sum[8];
        for (int m = 0; m < 8; m++) sum[m] = _mm512_loadu_pd(a + 8 * m);
        for (Py_ssize_t g = 0; g < groups; g++) {
            const __m512i bytes = g < whole ? _mm512_loadu_si512(plane + 64 * g)
                                            : _mm512_maskz_loadu_epi8(last, plane + 64 * g); /* zero rows past */
            const __m512i t = _mm512_gf2p8affine_epi64_epi8(bit_of, _mm512_permutexvar_epi8(gather, bytes), 0);
            const double *restrict U = halves + 32 * g;
            for (int m = 0; m < 8; m++)
                sum[m] = _mm512_add_pd(sum[m], _mm512_add_pd(nibble_lookup(U, _mm512_srli_epi64(t, 8 * m)),
                                                             nibble_lookup(U + 16, _mm512_srli_epi64(t, 8 * m + 4))));
        }
        for (int m = 0; m < 8; m++) _mm512_storeu_pd(a + 8 * m, sum[m]);
    }
}
#endif

_Static_assert(SUM_ROWS / 8 * 32 <= GROUP_ROWS / 8 * 256, "the nibble path's halves fit in the groups' tables");
static int nibble_lookups = 0; /* whether bits_sums takes the AVX-512 nibble path where B is a multiple of 8 */

/* T[b, v] = N[2 b, v & 15] + N[2 b + 1, v >> 4] for the byte positions b < B: the byte tables of the nibble tables
   N (2 B, 16), N[q, u] theta summed over the bits of u at nibble q (the low nibble of byte b is q = 2 b). */
static void byte_tables(const double *restrict N, double *restrict T, Py_ssize_t B) {
    for (Py_ssize_t b = 0; b < B; b++)
        for (int h = 0; h < 16; h++)
            for (int u = 0; u < 16; u++) T[256 * b + 16 * h + u] = N[32 * b + u] + N[32 * b + 16 + h];
}

static void bits_sums_rows(const uint8_t *restrict bits, const double *restrict w, const double *restrict N,
                           const double *restrict T, double *restrict sums, Py_ssize_t m, Py_ssize_t B, double low,
                           double gap, uint8_t *restrict planes, uint8_t *restrict pad, uint8_t *restrict t,
                           double *restrict tables, double *restrict acc, double *L_out, double *R_out) {
    const Py_ssize_t Bq = (B + 3) & ~(Py_ssize_t)3, P = 8 * Bq;
    const int nibbles = nibble_lookups && B % 8 == 0;
    double s[SUM_ROWS], d[SUM_ROWS], logs[SUM_ROWS], rg[SUM_ROWS + 8], L = 0.0, R = 0.0;
    for (Py_ssize_t p = 0; p < P; p++) acc[p] = 0.0;
    for (Py_ssize_t i0 = 0; i0 < m; i0 += SUM_ROWS) {
        const Py_ssize_t rows = m - i0 < SUM_ROWS ? m - i0 : SUM_ROWS;
        const uint8_t *chunk = bits + i0 * B;
        const Py_ssize_t next = m - i0 - rows < SUM_ROWS ? m - i0 - rows : SUM_ROWS;
        copy_planes(chunk, planes, rows, B); /* the block's bytes as planes of 8 byte positions */
#ifdef HAVE_AVX_PATH
        if (nibbles) /* the next block prefetched a little at a time, between the lookups */
            sums_of_planes_nibbles(planes, N, T, s, rows, B, chunk + rows * B, next * B);
        else
#endif
        {
            for (Py_ssize_t j = 0; j < next * B; j += 64) PREFETCH(chunk + rows * B + j); /* the next block */
            sums_of_planes(planes, T, s, 0, rows, B);
        }
        for (Py_ssize_t i = 0; i < rows; i++) d[i] = low + gap * s[i];
        logs_of(d, logs, rows);
        for (Py_ssize_t i = 0; i < rows; i++) {
            const double wi = w[i0 + i], r = wi / d[i];
            rg[i] = r * gap;
            L += wi * logs[i];
            R += r;
        }
        for (Py_ssize_t i = rows; i < rows + 8; i++) rg[i] = 0.0;
#ifdef HAVE_AVX_PATH
        if (nibbles) {
            group_sums_nibbles(planes, rg, rows, B, tables, acc);
            continue;
        }
#endif
        for (Py_ssize_t j0 = 0; j0 < rows; j0 += GROUP_ROWS)
            add_group_sums(chunk + j0 * B, rg + j0, rows - j0 < GROUP_ROWS ? rows - j0 : GROUP_ROWS, B, pad, t,
                           tables, acc);
    }
    for (Py_ssize_t p = 0; p < P; p++) { /* the secret at position p: the nibble path's order or the transposition's */
        const Py_ssize_t x = nibbles ? (p & ~(Py_ssize_t)63) + 8 * (p & 7) + ((p >> 3) & 7)    /* p = 8 c0 + 8 m + b */
                                     : (p & ~(Py_ssize_t)31) + 8 * (p & 3) + ((p >> 2) & 7); /* p = 32 q + 4 c + b */
        if (x < 8 * B) sums[x] += acc[p];
    }
    *L_out = L, *R_out = R;
}

/* One pass over a candidate mechanism A (k, m) row-major: whether every entry is >= 0 (no NaN, no negative entry),
   the row whose sum is farthest from 1 and that distance (infinite or NaN if an entry is), and each column's largest
   entry into column_max (none where it is NULL, which only ibu_matrix passes, with a product); with `product` (not
   NULL), also IBU's first product from a uniform start f into it,
       product[z] = sum_x f A[x, z]        over x = 0, 1, ... in order, a multiply then an add
   as combine_rows sums it (the same bits), so that one call of IBU reads A once less. The row sums are partial sums
   (a tolerance test: their order does not matter). Rows go by in blocks of SUMMARY_ROWS, so that a block's column
   maxima and products stay in registers while its rows go by. */
#define SUMMARY_ROWS 8

static void row_error(double total, Py_ssize_t x, double *worst_error, Py_ssize_t *worst_row) {
    const double error = fabs(total - 1.0);
    if (!(error <= *worst_error) && *worst_error == *worst_error) /* a NaN error is the worst */
        *worst_error = error, *worst_row = x;
}

static int summarise_portable(const double *restrict A, double *restrict column_max, double *restrict product,
                              double f, Py_ssize_t k, Py_ssize_t m, double *worst_error, Py_ssize_t *worst_row) {
    int bad = 0;
    *worst_error = 0.0, *worst_row = 0;
    if (column_max)
        for (Py_ssize_t z = 0; z < m; z++) column_max[z] = A[z];
    if (product)
        for (Py_ssize_t z = 0; z < m; z++) product[z] = 0.0;
    for (Py_ssize_t x = 0; x < k; x++) {
        const double *restrict row = A + x * m;
        double total = 0.0;
        for (Py_ssize_t z = 0; z < m; z++) {
            const double v = row[z];
            total += v;
            bad |= !(v >= 0.0);
            if (column_max) column_max[z] = v > column_max[z] ? v : column_max[z];
        }
        if (product)
            for (Py_ssize_t z = 0; z < m; z++) product[z] += f * row[z];
        row_error(total, x, worst_error, worst_row);
    }
    return !bad;
}

static int (*summarise)(const double *restrict, double *restrict, double *restrict, double, Py_ssize_t, Py_ssize_t,
                        double *, Py_ssize_t *) = summarise_portable;

#ifdef HAVE_AVX_PATH
/* The same pass with AVX: a block's rows go by four columns at a time, each row's partial sums in a vector, the
   sign test, the column maxima and the products four at a time (the products' terms in the same order: the same
   bits as the portable path). */
/* ibu_matrix's pass with AVX (summarise_avx without column maxima, with a product): four rows at a time, sixteen
   columns at a time, the product's sixteen outputs in four registers while the four rows go by (in order: the same
   bits as the portable path). The sign test is the OR of the entries' bits (a set sign bit: a negative entry, or a
   -0.0, which the general path then takes), a NaN entry shows in its row's sum (NaN, the worst error). Fewer
   operations than the general pass: measured 2026-11-28, k = 256: the pass 11 us before. */
#define PRODUCT_ROWS 4
__attribute__((target("avx"))) static int summarise_product_avx(const double *restrict A, double *restrict product,
                                                                 double f, Py_ssize_t k, Py_ssize_t m,
                                                                 double *worst_error, Py_ssize_t *worst_row) {
    const __m256d zero = _mm256_setzero_pd(), scale = _mm256_set1_pd(f);
    __m256d bits = zero;
    uint64_t tail_bits = 0;
    *worst_error = 0.0, *worst_row = 0;
    const Py_ssize_t m16 = m - m % 16, m4 = m - m % 4;
    for (Py_ssize_t z = 0; z < m; z++) product[z] = 0.0;
    for (Py_ssize_t x0 = 0; x0 < k; x0 += PRODUCT_ROWS) {
        const Py_ssize_t rows = k - x0 < PRODUCT_ROWS ? k - x0 : PRODUCT_ROWS;
        const double *restrict block = A + x0 * m;
        __m256d s[PRODUCT_ROWS] = {zero, zero, zero, zero};
        for (Py_ssize_t z = 0; z < m16; z += 16) {
            __m256d p0 = _mm256_loadu_pd(product + z), p1 = _mm256_loadu_pd(product + z + 4),
                    p2 = _mm256_loadu_pd(product + z + 8), p3 = _mm256_loadu_pd(product + z + 12);
            for (Py_ssize_t r = 0; r < rows; r++) {
                const double *row = block + r * m + z;
                const __m256d v0 = _mm256_loadu_pd(row), v1 = _mm256_loadu_pd(row + 4),
                              v2 = _mm256_loadu_pd(row + 8), v3 = _mm256_loadu_pd(row + 12);
                bits = _mm256_or_pd(bits, _mm256_or_pd(_mm256_or_pd(v0, v1), _mm256_or_pd(v2, v3)));
                s[r] = _mm256_add_pd(s[r], _mm256_add_pd(_mm256_add_pd(v0, v1), _mm256_add_pd(v2, v3)));
                p0 = _mm256_add_pd(p0, _mm256_mul_pd(scale, v0));
                p1 = _mm256_add_pd(p1, _mm256_mul_pd(scale, v1));
                p2 = _mm256_add_pd(p2, _mm256_mul_pd(scale, v2));
                p3 = _mm256_add_pd(p3, _mm256_mul_pd(scale, v3));
            }
            _mm256_storeu_pd(product + z, p0);
            _mm256_storeu_pd(product + z + 4, p1);
            _mm256_storeu_pd(product + z + 8, p2);
            _mm256_storeu_pd(product + z + 12, p3);
        }
        for (Py_ssize_t z = m16; z < m4; z += 4) {
            __m256d p0 = _mm256_loadu_pd(product + z);
            for (Py_ssize_t r = 0; r < rows; r++) {
                const __m256d v = _mm256_loadu_pd(block + r * m + z);
                bits = _mm256_or_pd(bits, v);
                s[r] = _mm256_add_pd(s[r], v);
                p0 = _mm256_add_pd(p0, _mm256_mul_pd(scale, v));
            }
            _mm256_storeu_pd(product + z, p0);
        }
        for (Py_ssize_t r = 0; r < rows; r++) {
            const double *restrict row = block + r * m;
            double lanes[4];
            _mm256_storeu_pd(lanes, s[r]);
            double total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
            for (Py_ssize_t z = m4; z < m; z++) {
                const double v = row[z];
                uint64_t u;
                memcpy(&u, &v, 8);
                total += v, tail_bits |= u;
                product[z] += f * v;
            }
            row_error(total, x0 + r, worst_error, worst_row);
        }
    }
    return _mm256_movemask_pd(bits) == 0 && (tail_bits >> 63) == 0;
}

__attribute__((target("avx"))) static int summarise_avx(const double *restrict A, double *restrict column_max,
                                                         double *restrict product, double f, Py_ssize_t k,
                                                         Py_ssize_t m, double *worst_error, Py_ssize_t *worst_row) {
    if (!column_max) return summarise_product_avx(A, product, f, k, m, worst_error, worst_row);
    const __m256d zero = _mm256_setzero_pd(), scale = _mm256_set1_pd(f);
    __m256d bad = zero;
    int tail_ok = 1;
    *worst_error = 0.0, *worst_row = 0;
    const Py_ssize_t m4 = m - m % 4;
    if (column_max)
        for (Py_ssize_t z = 0; z < m; z++) column_max[z] = A[z];
    if (product)
        for (Py_ssize_t z = 0; z < m; z++) product[z] = 0.0;
    for (Py_ssize_t x0 = 0; x0 < k; x0 += SUMMARY_ROWS) {
        const Py_ssize_t rows = k - x0 < SUMMARY_ROWS ? k - x0 : SUMMARY_ROWS;
        const double *restrict block = A + x0 * m;
        __m256d s[SUMMARY_ROWS];
        for (int r = 0; r < SUMMARY_ROWS; r++) s[r] = zero;
        for (Py_ssize_t z = 0; z < m4; z += 4) {
            __m256d most = _mm256_loadu_pd(column_max + z);
            if (product) {
                __m256d sum = _mm256_loadu_pd(product + z);
                for (Py_ssize_t r = 0; r < rows; r++) {
                    const __m256d v = _mm256_loadu_pd(block + r * m + z);
                    s[r] = _mm256_add_pd(s[r], v);
                    bad = _mm256_or_pd(bad, _mm256_cmp_pd(v, zero, _CMP_NGE_UQ));
                    most = _mm256_max_pd(v, most);
                    sum = _mm256_add_pd(sum, _mm256_mul_pd(scale, v));
                }
                _mm256_storeu_pd(product + z, sum);
            } else
                for (Py_ssize_t r = 0; r < rows; r++) {
                    const __m256d v = _mm256_loadu_pd(block + r * m + z);
                    s[r] = _mm256_add_pd(s[r], v);
                    bad = _mm256_or_pd(bad, _mm256_cmp_pd(v, zero, _CMP_NGE_UQ));
                    most = _mm256_max_pd(v, most);
                }
            _mm256_storeu_pd(column_max + z, most);
        }
        for (Py_ssize_t r = 0; r < rows; r++) {
            const double *restrict row = block + r * m;
            double lanes[4];
            _mm256_storeu_pd(lanes, s[r]);
            double total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
            for (Py_ssize_t z = m4; z < m; z++) {
                const double v = row[z];
                total += v;
                tail_ok &= v >= 0.0;
                if (column_max) column_max[z] = v > column_max[z] ? v : column_max[z];
                if (product) product[z] += f * v;
            }
            row_error(total, x0 + r, worst_error, worst_row);
        }
    }
    return tail_ok && _mm256_movemask_pd(bad) == 0;
}
#endif

/* Local hashing's hash table (privest/protocols/xxh32.py, _hash_table): out[i k + v] = xxh32(decimal string of v,
   seeds[i]) for every seed i and value v in 0..k-1 (k <= 10^15: at most 15 digits). XXH32 on an input shorter than
   16 bytes of length L: h = seed + P5 + L; each 4-byte little-endian word w: h = rotl(h + w P3, 17) P4; each
   remaining byte b: h = rotl(h + b P5, 11) P1; then the avalanche; all mod 2^32. What depends on v alone (w P3 and
   b P5) is computed once for a tile of HASH_TILE values; then every seed's row of the tile, one run of values of
   one decimal length after another, with L a constant in the loop over v (a switch), so that the compiler
   vectorises it (AVX2 where the CPU has it: eight hashes an instruction). Integer arithmetic: the same bits on
   every path. */
#define XXH_P1 0x9E3779B1u
#define XXH_P2 0x85EBCA77u
#define XXH_P3 0xC2B2AE3Du
#define XXH_P4 0x27D4EB2Fu
#define XXH_P5 0x165667B1u
#define ROTL32(h, r) (((h) << (r)) | ((h) >> (32 - (r))))
#define HASH_TILE 4096
#define HASH_LENGTH_MAX 15

/* The run [a, b) of the tile's values, all of L digits, under one seed; pre[j] the tile's words j times P3
   (j < 3), pre[3 + j] its remaining bytes j times P5. */
#define HASH_RUN(L)                                                                                              \
    case L: {                                                                                                    \
        const uint32_t start = seed + XXH_P5 + (uint32_t)(L);                                                    \
        for (Py_ssize_t t = a; t < b; t++) {                                                                     \
            uint32_t h = start;                                                                                  \
            for (int j = 0; j < (L) / 4; j++) h = ROTL32(h + pre[j * HASH_TILE + t], 17) * XXH_P4;               \
            for (int j = 0; j < (L) % 4; j++) h = ROTL32(h + pre[(3 + j) * HASH_TILE + t], 11) * XXH_P1;         \
            h = (h ^ (h >> 15)) * XXH_P2;                                                                        \
            h = (h ^ (h >> 13)) * XXH_P3;                                                                        \
            row[t] = h ^ (h >> 16);                                                                              \
        }                                                                                                        \
        break;                                                                                                   \
    }
#define HASH_ROWS_BODY                                                                                           \
    for (Py_ssize_t i = 0; i < n; i++) {                                                                         \
        const uint32_t seed = seeds[i];                                                                          \
        uint32_t *restrict row = out + i * k;                                                                    \
        for (int r = 0; r < runs; r++) {                                                                         \
            const Py_ssize_t a = run_start[r], b = run_start[r + 1];                                             \
            switch (run_length[r]) {                                                                             \
                HASH_RUN(1) HASH_RUN(2) HASH_RUN(3) HASH_RUN(4) HASH_RUN(5) HASH_RUN(6) HASH_RUN(7) HASH_RUN(8)  \
                HASH_RUN(9) HASH_RUN(10) HASH_RUN(11) HASH_RUN(12) HASH_RUN(13) HASH_RUN(14) HASH_RUN(15)        \
            }                                                                                                    \
        }                                                                                                        \
    }

/* One tile's columns of every row: out points at the tile's first column of row 0; the tile's values in `runs`
   runs of one length, run r being [run_start[r], run_start[r + 1]) of length run_length[r]. */
static void hash_rows_portable(const uint32_t *restrict seeds, uint32_t *restrict out, Py_ssize_t n, Py_ssize_t k,
                               const uint32_t *restrict pre, const Py_ssize_t *run_start, const int *run_length,
                               int runs) { HASH_ROWS_BODY }

static void (*hash_rows)(const uint32_t *restrict, uint32_t *restrict, Py_ssize_t, Py_ssize_t,
                         const uint32_t *restrict, const Py_ssize_t *, const int *, int) = hash_rows_portable;

#ifdef HAVE_AVX_PATH
__attribute__((target("avx2"))) static void hash_rows_avx2(const uint32_t *restrict seeds, uint32_t *restrict out,
                                                            Py_ssize_t n, Py_ssize_t k, const uint32_t *restrict pre,
                                                            const Py_ssize_t *run_start, const int *run_length,
                                                            int runs) { HASH_ROWS_BODY }
#endif

/* A tile's words times P3 and bytes times P5 (pre, 6 x HASH_TILE) for the values t0 .. t0 + size - 1, and its runs
   of one decimal length; returns the number of runs. */
static int tile_words(Py_ssize_t t0, Py_ssize_t size, uint32_t *pre, Py_ssize_t *run_start, int *run_length) {
    int runs = 0, previous = 0;
    for (Py_ssize_t t = 0; t < size; t++) {
        unsigned char digits[HASH_LENGTH_MAX];
        uint64_t v = (uint64_t)(t0 + t);
        int L = 0;
        do digits[L++] = (unsigned char)('0' + v % 10), v /= 10; while (v); /* least significant first */
        if (L != previous) run_start[runs] = t, run_length[runs++] = previous = L;
        for (int j = 0; j < L / 4; j++) {
            uint32_t word = 0;
            for (int c = 0; c < 4; c++) word |= (uint32_t)digits[L - 1 - (4 * j + c)] << (8 * c);
            pre[j * HASH_TILE + t] = word * XXH_P3;
        }
        for (int j = 0; j < L % 4; j++) pre[(3 + j) * HASH_TILE + t] = (uint32_t)digits[L - 1 - (L - L % 4 + j)] * XXH_P5;
    }
    run_start[runs] = size;
    return runs;
}

/* The whole table, a tile of values at a time: the tile's words and bytes, then its columns of every row. */
static void hash_tiles(const uint32_t *seeds, uint32_t *out, Py_ssize_t n, Py_ssize_t k, uint32_t *pre) {
    for (Py_ssize_t t0 = 0; t0 < k; t0 += HASH_TILE) {
        const Py_ssize_t size = k - t0 < HASH_TILE ? k - t0 : HASH_TILE;
        Py_ssize_t run_start[HASH_LENGTH_MAX + 2];
        int run_length[HASH_LENGTH_MAX + 1];
        const int runs = tile_words(t0, size, pre, run_start, run_length);
        hash_rows(seeds, out + t0, n, k, pre, run_start, run_length, runs);
    }
}

/* Local hashing's membership (privest/protocols/hashing.py): out[i k + v] = (xxh32(v, seeds[i]) mod g == values[i]),
   a tile's hashes of one row at a time into `hashes`, then their remainders by Lemire's direct computation
   (r = floor(g ((ceil(2^64 / g) h) mod 2^64) / 2^64), exact for every 32-bit h and g, Lemire, Kaser and Kurz 2019)
   written with 32 x 32 -> 64-bit products only, so that it vectorises; g = 2^32 compares the hash itself. */
#define MEMBER_BODY                                                                                              \
    if (g == 4294967296ULL) {                                                                                    \
        for (Py_ssize_t t = 0; t < size; t++) out[t] = hashes[t] == value;                                       \
    } else {                                                                                                     \
        const uint64_t M = UINT64_MAX / g + 1, m_hi = M >> 32, m_lo = M & 0xFFFFFFFFu;                           \
        for (Py_ssize_t t = 0; t < size; t++) {                                                                  \
            const uint64_t h = hashes[t], low = m_lo * h + ((m_hi * h) << 32);                                   \
            const uint64_t r = ((low >> 32) * g + (((low & 0xFFFFFFFFu) * g) >> 32)) >> 32;                      \
            out[t] = r == value;                                                                                 \
        }                                                                                                        \
    }

static void members_portable(const uint32_t *restrict hashes, unsigned char *restrict out, Py_ssize_t size,
                             uint64_t g, uint64_t value) { MEMBER_BODY }

static void (*members_of)(const uint32_t *restrict, unsigned char *restrict, Py_ssize_t, uint64_t,
                          uint64_t) = members_portable;

#ifdef HAVE_AVX_PATH
__attribute__((target("avx2"))) static void members_avx2(const uint32_t *restrict hashes, unsigned char *restrict out,
                                                          Py_ssize_t size, uint64_t g, uint64_t value) { MEMBER_BODY }
#endif

/* The tiles' hashes of pre and runs as hash_tiles computes them, each row's through `hashes` (HASH_TILE) into out. */
static void member_tiles(const uint32_t *seeds, const int64_t *values, unsigned char *out, Py_ssize_t n,
                         Py_ssize_t k, uint64_t g, uint32_t *pre, uint32_t *hashes) {
    for (Py_ssize_t t0 = 0; t0 < k; t0 += HASH_TILE) {
        const Py_ssize_t size = k - t0 < HASH_TILE ? k - t0 : HASH_TILE;
        Py_ssize_t run_start[HASH_LENGTH_MAX + 2];
        int run_length[HASH_LENGTH_MAX + 1];
        const int runs = tile_words(t0, size, pre, run_start, run_length);
        for (Py_ssize_t i = 0; i < n; i++) {
            hash_rows(seeds + i, hashes, 1, 0, pre, run_start, run_length, runs);
            if (values[i] < 0 || (uint64_t)values[i] >= g) memset(out + i * k + t0, 0, size);
            else members_of(hashes, out + i * k + t0, size, g, (uint64_t)values[i]);
        }
    }
}

/* The item types of the entry points' buffers: an item's size, the one-letter buffer formats of that type (each
   after an optional byte-order mark of native order) and the name an error gives. */
typedef struct {
    Py_ssize_t itemsize;
    const char *codes, *name;
} ItemType;

static const ItemType FLOAT64 = {8, "d", "float64"}, INT64 = {8, "ql", "int64"}, UINT64 = {8, "QL", "uint64"},
                      UINT32 = {4, "IL", "uint32"}, UINT8 = {1, "B", "uint8"}, BOOLEAN = {1, "?", "bool"};

/* A buffer argument of an entry point: the object passed, the argument's name, at least `needed` items of `type`,
   written by the call (writable) or only read. */
typedef struct {
    PyObject *object;
    const char *name;
    Py_ssize_t needed;
    const ItemType *type;
    int writable;
} BufferArg;

static void release_buffers(Py_buffer *views, int held) {
    for (int i = 0; i < held; i++) PyBuffer_Release(&views[i]);
}

/* A ValueError naming function where its count of values n is negative; returns -1 then, else 0. */
static int check_count(const char *function, Py_ssize_t n) {
    if (n >= 0) return 0;
    PyErr_Format(PyExc_ValueError, "%s: n must be >= 0, got %zd", function, n);
    return -1;
}

/* Every buffer argument of a call held, in order, in views[0 .. count): C-contiguous, of its item type, at least its
   size and writable where it is written. 0; or -1 with the Python error set and none held: a ValueError naming the
   function, the argument, its type and its size where a buffer is of another type or too short (Python's own error
   where the object has no such buffer). Each entry point states its buffers once and releases them, all at once,
   with release_buffers(views, count). */
static int hold_buffers(const char *function, const BufferArg *args, int count, Py_buffer *views) {
    for (int held = 0; held < count; held++) {
        const BufferArg *arg = &args[held];
        Py_buffer *view = &views[held];
        if (PyObject_GetBuffer(arg->object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                               (arg->writable ? PyBUF_WRITABLE : 0)) < 0) {
            release_buffers(views, held);
            return -1;
        }
        const char *format = view->format == NULL ? "" : view->format;
        if (*format == '=' || *format == '<' || *format == '@') format++;
        if (view->itemsize != arg->type->itemsize || format[0] == '\0' || format[1] != '\0' ||
            strchr(arg->type->codes, format[0]) == NULL || view->len < arg->needed * arg->type->itemsize) {
            release_buffers(views, held + 1);
            PyErr_Format(PyExc_ValueError, "%s: %s must be a C-contiguous %s array of at least %zd values", function,
                         arg->name, arg->type->name, arg->needed);
            return -1;
        }
    }
    return 0;
}

/* IBU to its stop, all in one call (privest/estimators/_iteration.py, _iterate_compiled): from theta^0 = T[0 .. k)
   and m^0 = M[0 .. m) = G^T theta^0, the updates of update_once, each followed by
       L^t = (sum_z w[z] log m^t[z]) + offset       the logs by logs_of, the sum over z = 0, 1, ... in order
   until the first t with |L^t - L^(t-1)| < delta, or t = max_iter (then *capped = 1). T (2k) and M (2m) hold the
   last two iterates in turn; ratio and logs (m each) are scratch. Returns t; theta^t / sum_x theta^t_x (the sum over x
   in order) is written to T[0 .. k) and L^t to *L_out. Every sum and log in a fixed order: the same bits on every
   path (AVX or portable), CPU and BLAS. An L^t is computed only where the change might stop (screen_pass, below): the
   others' changes certainly reach delta, so the same t, theta^t and L^t as computing every L^t (tested). */
/* L = (sum_z w[z] log m_at[z]) + offset: the logs by logs_of into logs, the sum over z = 0, 1, ... in order. */
static double likelihood_at(const double *w, const double *m_at, double *logs, Py_ssize_t m, double offset) {
    logs_of(m_at, logs, m);
    double total = 0.0;
    for (Py_ssize_t z = 0; z < m; z++) total += w[z] * logs[z];
    return total + offset;
}

/* The screen of run_updates, one pass over m^t = m_new after an update: ratio = w / m^t (the next update's, as
   update_once computes it) and whether |L^t - L^(t-1)| as likelihood_at computes them certainly reaches delta, without
   a logarithm (as _iteration._first_candidate screens numpy's blocks): log r >= 1 - 1/r gives
       L^t - L^(t-1) >= total - sum_z ratio[z] m^(t-1)[z]        (every w[z] >= 0, total = sum_z w[z])
   and the change is screened out when that bound, less twice the rounding error of every sum and log involved (each a
   sum of m terms: (m + 6) u times its absolute terms, u = 2^-53, |log m| at most the largest over both iterates), still
   reaches delta. The sum and the extremes in any order (four partial sums): they bound, they are never reported. *low
   and *high hold the extremes of m^(t-1) on entry and those of m^t on return. A zero, infinite or NaN entry makes the
   margin or the bound NaN or infinite: the change is then computed. */
static int screen_pass(const double *restrict w, const double *restrict m_old, const double *restrict m_new,
                       double *restrict ratio, Py_ssize_t m, double total, double offset, double delta, double *low,
                       double *high) {
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, lo = INFINITY, hi = 0.0;
    Py_ssize_t z = 0;
    for (; z + 4 <= m; z += 4) {
        ratio[z] = w[z] / m_new[z], ratio[z + 1] = w[z + 1] / m_new[z + 1];
        ratio[z + 2] = w[z + 2] / m_new[z + 2], ratio[z + 3] = w[z + 3] / m_new[z + 3];
        a0 += ratio[z] * m_old[z], a1 += ratio[z + 1] * m_old[z + 1];
        a2 += ratio[z + 2] * m_old[z + 2], a3 += ratio[z + 3] * m_old[z + 3];
        for (int i = 0; i < 4; i++) lo = m_new[z + i] < lo ? m_new[z + i] : lo, hi = m_new[z + i] > hi ? m_new[z + i] : hi;
    }
    for (; z < m; z++) {
        ratio[z] = w[z] / m_new[z];
        a0 += ratio[z] * m_old[z];
        lo = m_new[z] < lo ? m_new[z] : lo, hi = m_new[z] > hi ? m_new[z] : hi;
    }
    const double a = (a0 + a1) + (a2 + a3), bound = total - a;
    const double lowest = lo < *low ? lo : *low, highest = hi > *high ? hi : *high;
    const double largest_log = fmax(fabs(log(lowest)), fabs(log(highest)));
    const double margin = 2.1 * (double)(m + 6) * 0x1p-53 *
                          (a + total + 2.0 * (1.01 * total * largest_log + fabs(offset)));
    *low = lo, *high = hi;
    return lowest > 0.0 && bound - margin >= delta; /* false where any of them is NaN */
}

static Py_ssize_t run_updates(const double *G, const double *w, double *T, double *M, double *ratio, double *logs,
                              Py_ssize_t k, Py_ssize_t m, double delta, Py_ssize_t max_iter, int strided,
                              double offset, double *L_out, int *capped) {
    double *theta_old = T, *theta_new = T + k, *m_old = M, *m_new = M + m;
    double total = 0.0, low = INFINITY, high = 0.0;
    int screened = 1; /* whether the screen applies: every w[z] >= 0 */
    for (Py_ssize_t z = 0; z < m; z++) {
        ratio[z] = w[z] / m_old[z];
        total += w[z], screened &= w[z] >= 0.0;
        low = m_old[z] < low ? m_old[z] : low, high = m_old[z] > high ? m_old[z] : high;
    }
    double previous = 0.0, current = 0.0;
    int known = 0; /* whether previous is L at m_old (taken when an update's change is computed, not before) */
    Py_ssize_t t = 1;
    *capped = 1;
    for (; t <= max_iter; t++) {
        update_from_ratio(G, ratio, theta_old, theta_new, m_new, k, m, strided);
        /* an update whose change certainly reaches delta cannot stop: its L is not computed (unless the next needs it) */
        const int far = screen_pass(w, m_old, m_new, ratio, m, total, offset, delta, &low, &high) && screened;
        if (!far) {
            if (!known) previous = likelihood_at(w, m_old, logs, m, offset);
            current = likelihood_at(w, m_new, logs, m, offset);
        }
        double *swap = theta_old;
        theta_old = theta_new, theta_new = swap, swap = m_old, m_old = m_new, m_new = swap;
        if (!far && fabs(current - previous) < delta) { /* a NaN change (L = -inf twice) is no stop */
            *capped = 0;
            break;
        }
        previous = current, known = !far;
    }
    if (*capped) {
        t = max_iter;
        if (!known) current = likelihood_at(w, m_old, logs, m, offset);
    }
    double sum = 0.0;
    for (Py_ssize_t x = 0; x < k; x++) sum += theta_old[x];
    for (Py_ssize_t x = 0; x < k; x++) T[x] = theta_old[x] / sum;
    *L_out = current;
    return t;
}

/* The buffers of ibu_run and ibu_matrix: G (k m) and w (m) read, work (2 k + 4 m + WORK_PAD: T, M, ratio and logs)
   written. M and ratio start on 32-byte boundaries inside work (run_buffers), whatever work's own alignment: the
   vector loops load and store them 4 doubles at a time, and a load across a cache line costs another (an iteration at
   k = 256 ran 12.9 us with numpy's 16-byte-aligned buffers, 9.5 us aligned; measured 2026-11-28). */
#define WORK_PAD 8

typedef struct {
    double *T, *M, *ratio, *logs;
} RunBuffers;

static double *aligned_up(double *p) { return (double *)(((uintptr_t)p + 31) & ~(uintptr_t)31); }

static RunBuffers run_buffers(double *work, Py_ssize_t k, Py_ssize_t m) {
    RunBuffers b;
    b.T = work, b.M = aligned_up(work + 2 * k), b.ratio = aligned_up(b.M + 2 * m), b.logs = b.ratio + m;
    return b;
}

/* G itself where it starts on a 32-byte boundary, or where the run is short (max_iter < ALIGN_ITERATIONS: a copy
   costs about one update); else an aligned copy (*owned, for free()), the same entries, so the same bits: numpy gives a
   large array 16-byte alignment, and then half of the updates' 4-double loads of G cross a cache line (an update at
   k = 256 took 12.9 us against 9.5 aligned; measured 2026-11-28). NULL *owned where G is used as it is (also where
   the copy cannot be allocated). */
#define ALIGN_ITERATIONS 64
static const double *aligned_matrix(const double *G, Py_ssize_t size, Py_ssize_t max_iter, double **owned) {
    *owned = NULL;
    if ((uintptr_t)G % 32 == 0 || max_iter < ALIGN_ITERATIONS) return G;
    void *copy = NULL;
    if (posix_memalign(&copy, 64, (size_t)size * sizeof(double)) != 0) return G;
    memcpy(copy, G, (size_t)size * sizeof(double));
    *owned = copy;
    return copy;
}

static int hold_run(const char *function, PyObject **objects, Py_ssize_t k, Py_ssize_t m, Py_ssize_t max_iter,
                    Py_buffer *views) {
    if (k < 1 || m < 1 || max_iter < 1) {
        PyErr_Format(PyExc_ValueError, "%s: k, m and max_iter must be >= 1, got %zd, %zd, %zd", function, k, m,
                     max_iter);
        return -1;
    }
    const BufferArg buffers[3] = {{objects[0], "G", k * m, &FLOAT64, 0}, {objects[1], "w", m, &FLOAT64, 0},
                                  {objects[2], "work", 2 * k + 4 * m + WORK_PAD, &FLOAT64, 1}};
    return hold_buffers(function, buffers, 3, views);
}

static PyObject *ibu_run(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    Py_ssize_t k, m, max_iter;
    double delta, offset, L;
    int strided, capped;
    if (!PyArg_ParseTuple(args, "OOOnndnpd:ibu_run", &objects[0], &objects[1], &objects[2], &k, &m, &delta,
                          &max_iter, &strided, &offset))
        return NULL;
    Py_buffer views[3];
    if (hold_run("ibu_run", objects, k, m, max_iter, views) < 0) return NULL;
    double *work = views[2].buf, *owned;
    const RunBuffers b = run_buffers(work, k, m);
    Py_ssize_t t;
    Py_BEGIN_ALLOW_THREADS
    memmove(b.M, work + 2 * k, (size_t)m * sizeof(double)); /* m^0, from where the caller put it */
    const double *G = aligned_matrix(views[0].buf, k * m, max_iter, &owned);
    t = run_updates(G, views[1].buf, b.T, b.M, b.ratio, b.logs, k, m, delta, max_iter, strided, offset, &L, &capped);
    free(owned);
    Py_END_ALLOW_THREADS
    release_buffers(views, 3);
    return Py_BuildValue("(ndN)", t, L, PyBool_FromLong(capped));
}

/* ibu's whole call on a matrix (privest/estimators/_iteration.py, _ibu_matrix): A (k, m) checked as
   check_mechanism_columns checks it (every entry >= 0, no NaN, every row sum within atol of 1) in one pass that also
   sums m^0 = G^T (f, ..., f) (the uniform start f, as combine_rows sums it), every m^0[z] > 0 (without the column
   maxima: a column has a positive entry where its product is positive),
   every weight w[z] finite and positive (every column reported); then run_updates with offset 0. Returns None,
   having run nothing, where a check fails (the caller's own checks then say which). */
static PyObject *ibu_matrix(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    Py_ssize_t k, m, max_iter;
    double f, atol, delta, L, worst_error;
    int strided, capped, ok;
    if (!PyArg_ParseTuple(args, "OOOnndddnp:ibu_matrix", &objects[0], &objects[1], &objects[2], &k, &m, &f, &atol,
                          &delta, &max_iter, &strided))
        return NULL;
    Py_buffer views[3];
    if (hold_run("ibu_matrix", objects, k, m, max_iter, views) < 0) return NULL;
    const double *A = views[0].buf, *w = views[1].buf;
    const RunBuffers b = run_buffers(views[2].buf, k, m);
    double *T = b.T, *M = b.M, *owned = NULL;
    Py_ssize_t t = 0, worst_row;
    Py_BEGIN_ALLOW_THREADS
    ok = summarise(A, NULL, M, f, k, m, &worst_error, &worst_row) && worst_error <= atol;
    /* m^0[z] >= 2^-511 (THETA_FLOOR), so that column z has an entry >= 2^-511 (m^0[z] = f sum_x A[x, z] and f = 1/k):
       a column whose largest entry is below that (as privest/groups.py's _FAINT_COLUMN) fails here, and the general
       path, which scales such a column (its products with theta could underflow to 0), takes it; and so does a column
       of no positive entry, whose error that path names */
    for (Py_ssize_t z = 0; z < m && ok; z++)
        ok = M[z] >= THETA_FLOOR && w[z] > 0.0 && w[z] <= 1.7976931348623157e308;
    if (ok) {
        for (Py_ssize_t x = 0; x < k; x++) T[x] = f;
        const double *G = aligned_matrix(A, k * m, max_iter, &owned);
        t = run_updates(G, w, T, M, b.ratio, b.logs, k, m, delta, max_iter, strided, 0.0, &L, &capped);
        free(owned);
    }
    Py_END_ALLOW_THREADS
    release_buffers(views, 3);
    if (!ok) Py_RETURN_NONE;
    return Py_BuildValue("(ndN)", t, L, PyBool_FromLong(capped));
}

static PyObject *ibu_updates(PyObject *self, PyObject *args) {
    PyObject *objects[5];
    Py_ssize_t k, m, b;
    int strided = 0;
    if (!PyArg_ParseTuple(args, "OOOOOnnn|p:ibu_updates", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4], &k, &m, &b, &strided))
        return NULL;
    if (k < 1 || m < 1 || b < 0) {
        PyErr_Format(PyExc_ValueError, "ibu_updates: k and m must be >= 1 and b >= 0, got %zd, %zd, %zd", k, m, b);
        return NULL;
    }
    const BufferArg buffers[5] = {{objects[0], "G", k * m, &FLOAT64, 0}, {objects[1], "w", m, &FLOAT64, 0},
                                  {objects[2], "T", (b + 1) * k, &FLOAT64, 1},
                                  {objects[3], "M", (b + 1) * m, &FLOAT64, 1}, {objects[4], "ratio", m, &FLOAT64, 1}};
    Py_buffer views[5];
    if (hold_buffers("ibu_updates", buffers, 5, views) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    updates(views[0].buf, views[1].buf, views[2].buf, views[3].buf, views[4].buf, k, m, b, strided);
    Py_END_ALLOW_THREADS
    release_buffers(views, 5);
    Py_RETURN_NONE;
}

static PyObject *combine_rows(PyObject *self, PyObject *args) {
    PyObject *objects[3];
    Py_ssize_t k, m;
    if (!PyArg_ParseTuple(args, "OOOnn:combine_rows", &objects[0], &objects[1], &objects[2], &k, &m)) return NULL;
    if (k < 1 || m < 1) {
        PyErr_Format(PyExc_ValueError, "combine_rows: k and m must be >= 1, got %zd, %zd", k, m);
        return NULL;
    }
    const BufferArg buffers[3] = {{objects[0], "G", k * m, &FLOAT64, 0}, {objects[1], "s", k, &FLOAT64, 0},
                                  {objects[2], "out", m, &FLOAT64, 1}};
    Py_buffer views[3];
    if (hold_buffers("combine_rows", buffers, 3, views) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    double *out = views[2].buf;
    for (Py_ssize_t z = 0; z < m; z++) out[z] = 0.0;
    for (Py_ssize_t x = 0; x < k; x += BLOCK_ROWS)
        add_rows(views[0].buf, views[1].buf, out, x, k - x < BLOCK_ROWS ? k - x : BLOCK_ROWS, m);
    Py_END_ALLOW_THREADS
    release_buffers(views, 3);
    Py_RETURN_NONE;
}

static PyObject *mechanism_summary(PyObject *self, PyObject *args) {
    PyObject *objects[3] = {NULL, NULL, NULL};
    Py_ssize_t k, m, worst_row;
    double worst_error, f = 0.0;
    if (!PyArg_ParseTuple(args, "OOnn|Od:mechanism_summary", &objects[0], &objects[1], &k, &m, &objects[2], &f))
        return NULL;
    if (k < 1 || m < 1) {
        PyErr_Format(PyExc_ValueError, "mechanism_summary: k and m must be >= 1, got %zd, %zd", k, m);
        return NULL;
    }
    const int count = objects[2] && objects[2] != Py_None ? 3 : 2; /* product only where given */
    const BufferArg buffers[3] = {{objects[0], "A", k * m, &FLOAT64, 0}, {objects[1], "column_max", m, &FLOAT64, 1},
                                  {objects[2], "product", m, &FLOAT64, 1}};
    Py_buffer views[3];
    if (hold_buffers("mechanism_summary", buffers, count, views) < 0) return NULL;
    int entries_ok;
    Py_BEGIN_ALLOW_THREADS
    entries_ok = summarise(views[0].buf, views[1].buf, count == 3 ? views[2].buf : NULL, f, k, m, &worst_error,
                           &worst_row);
    Py_END_ALLOW_THREADS
    release_buffers(views, count);
    return Py_BuildValue("(Ndn)", PyBool_FromLong(entries_ok), worst_error, worst_row);
}

static PyObject *bits_pass(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    Py_ssize_t m, B;
    double low, gap, L, R;
    unsigned long long carry = 0;
    if (!PyArg_ParseTuple(args, "OOOOnndd|K:bits_pass", &objects[0], &objects[1], &objects[2], &objects[3], &m, &B,
                          &low, &gap, &carry))
        return NULL;
    if (m < 0 || B < 1) {
        PyErr_Format(PyExc_ValueError, "bits_pass: m must be >= 0 and B >= 1, got %zd, %zd", m, B);
        return NULL;
    }
    const BufferArg buffers[4] = {{objects[0], "bits", m * B, &UINT8, 0}, {objects[1], "w", m, &FLOAT64, 0},
                                  {objects[2], "T", B * 256, &FLOAT64, 0}, {objects[3], "H", B * 256, &FLOAT64, 1}};
    Py_buffer views[4];
    if (hold_buffers("bits_pass", buffers, 4, views) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    bits_rows(views[0].buf, views[1].buf, views[2].buf, views[3].buf, m, B, low, gap, (uint64_t)carry, &L, &R);
    Py_END_ALLOW_THREADS
    release_buffers(views, 4);
    return Py_BuildValue("(dd)", L, R);
}

static PyObject *bits_sums(PyObject *self, PyObject *args) {
    PyObject *objects[4];
    Py_ssize_t m, B;
    double low, gap, L, R;
    if (!PyArg_ParseTuple(args, "OOOOnndd:bits_sums", &objects[0], &objects[1], &objects[2], &objects[3], &m, &B,
                          &low, &gap))
        return NULL;
    if (m < 0 || B < 1 || B > PY_SSIZE_T_MAX / 64 / SUM_ROWS) {
        PyErr_Format(PyExc_ValueError, "bits_sums: m must be >= 0 and B >= 1, got %zd, %zd", m, B);
        return NULL;
    }
    const Py_ssize_t Bq = (B + 3) & ~(Py_ssize_t)3;
    const BufferArg buffers[4] = {{objects[0], "bits", m * B, &UINT8, 0}, {objects[1], "w", m, &FLOAT64, 0},
                                  {objects[2], "N", 32 * B, &FLOAT64, 0}, {objects[3], "sums", 8 * B, &FLOAT64, 1}};
    Py_buffer views[4];
    if (hold_buffers("bits_sums", buffers, 4, views) < 0) return NULL;
    /* the byte tables, the groups' tables (or the nibble path's halves: as many doubles), the permuted sums, the
       block's planes, padded rows and transposed bytes */
    const Py_ssize_t B8 = (B + 7) & ~(Py_ssize_t)7;
    double *work = PyMem_RawMalloc((256 * B + GROUP_ROWS / 8 * 256 + 8 * Bq) * sizeof(double) + 2 * GROUP_ROWS * Bq +
                                   SUM_ROWS * B8);
    if (work == NULL) {
        release_buffers(views, 4);
        return PyErr_NoMemory();
    }
    double *T = work, *tables = T + 256 * B, *acc = tables + GROUP_ROWS / 8 * 256;
    uint8_t *planes = (uint8_t *)(acc + 8 * Bq), *pad = planes + SUM_ROWS * B8;
    Py_BEGIN_ALLOW_THREADS
    byte_tables(views[2].buf, T, B);
    bits_sums_rows(views[0].buf, views[1].buf, views[2].buf, T, views[3].buf, m, B, low, gap, planes, pad,
                   pad + GROUP_ROWS * Bq, tables, acc, &L, &R);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(work);
    release_buffers(views, 4);
    return Py_BuildValue("(dd)", L, R);
}

static PyObject *log_values(PyObject *self, PyObject *args) {
    PyObject *objects[2];
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOn:log_values", &objects[0], &objects[1], &n)) return NULL;
    if (check_count("log_values", n) < 0) return NULL;
    const BufferArg buffers[2] = {{objects[0], "x", n, &FLOAT64, 0}, {objects[1], "out", n, &FLOAT64, 1}};
    Py_buffer views[2];
    if (hold_buffers("log_values", buffers, 2, views) < 0) return NULL;
    logs_of(views[0].buf, views[1].buf, n);
    release_buffers(views, 2);
    Py_RETURN_NONE;
}

static PyObject *hash_table(PyObject *self, PyObject *args) {
    PyObject *seeds_object, *out_object;
    Py_ssize_t n, k;
    if (!PyArg_ParseTuple(args, "OOnn:hash_table", &seeds_object, &out_object, &n, &k)) return NULL;
    if (n < 0 || k < 1 || k > 1000000000000000LL || n > PY_SSIZE_T_MAX / 4 / k) {
        PyErr_Format(PyExc_ValueError, "hash_table: n must be >= 0 and k in [1, 10^15] with n k 4 bytes addressable, "
                     "got %zd, %zd", n, k);
        return NULL;
    }
    const BufferArg buffers[2] = {{seeds_object, "seeds", n, &UINT32, 0}, {out_object, "out", n * k, &UINT32, 1}};
    Py_buffer views[2];
    if (hold_buffers("hash_table", buffers, 2, views) < 0) return NULL;
    uint32_t *pre = PyMem_RawMalloc(6 * HASH_TILE * sizeof(uint32_t));
    const int ran = pre != NULL;
    if (ran) {
        Py_BEGIN_ALLOW_THREADS
        hash_tiles(views[0].buf, views[1].buf, n, k, pre);
        Py_END_ALLOW_THREADS
        PyMem_RawFree(pre);
    }
    release_buffers(views, 2);
    if (!ran) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *hash_members(PyObject *self, PyObject *args) {
    PyObject *seeds_object, *values_object, *out_object;
    Py_ssize_t n, k;
    unsigned long long g;
    if (!PyArg_ParseTuple(args, "OOOnnK:hash_members", &seeds_object, &values_object, &out_object, &n, &k, &g))
        return NULL;
    if (n < 0 || k < 1 || k > 1000000000000000LL || n > PY_SSIZE_T_MAX / 4 / k || g < 1 || g > 4294967296ULL) {
        PyErr_Format(PyExc_ValueError, "hash_members: n must be >= 0, k in [1, 10^15] with n k addressable and g in "
                     "[1, 2^32], got %zd, %zd, %llu", n, k, g);
        return NULL;
    }
    const BufferArg buffers[3] = {{seeds_object, "seeds", n, &UINT32, 0}, {values_object, "values", n, &INT64, 0},
                                  {out_object, "out", n * k, &BOOLEAN, 1}};
    Py_buffer views[3];
    if (hold_buffers("hash_members", buffers, 3, views) < 0) return NULL;
    uint32_t *pre = PyMem_RawMalloc(7 * HASH_TILE * sizeof(uint32_t));
    const int ran = pre != NULL;
    if (ran) {
        Py_BEGIN_ALLOW_THREADS
        member_tiles(views[0].buf, views[1].buf, views[2].buf, n, k, g, pre, pre + 6 * HASH_TILE);
        Py_END_ALLOW_THREADS
        PyMem_RawFree(pre);
    }
    release_buffers(views, 3);
    if (!ran) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* Local hashing's support (privest/protocols/hashing.py, _LocalHashing.support): counts[v] += #{i : xxh32(v,
   seeds[i]) mod g == values[i]}, a block of SUPPORT_BLOCK users at a time, and for each value v of a tile (its words
   and bytes times P3 and P5 in pre, as tile_words gives them) the block's users side by side: one hash, one remainder
   and one comparison a user, summed in a register. The remainder in doubles, exact: q = floor(h fl(1/g)) is
   floor(h / g) except where g divides h, there possibly one less (the product's error is below 2^-20 / g, h < 2^32),
   so r = h - q g (exact products and differences below 2^53) is h mod g, or g where it should be 0. No (n, k) matrix, no distinct reports.
   values[i] must lie in [0, g) (hash_support checks). */
#define SUPPORT_BLOCK 2048
#define SUPPORT_HASH(L)                                                                                          \
    uint32_t h = seeds[i] + XXH_P5 + (uint32_t)(L);                                                              \
    _Pragma("GCC unroll 4") for (int j = 0; j < (L) / 4; j++) h = ROTL32(h + w[j], 17) * XXH_P4;                 \
    _Pragma("GCC unroll 4") for (int j = 0; j < (L) % 4; j++) h = ROTL32(h + w[(L) / 4 + j], 11) * XXH_P1;       \
    h = (h ^ (h >> 15)) * XXH_P2;                                                                                \
    h = (h ^ (h >> 13)) * XXH_P3;                                                                                \
    h ^= h >> 16;
#define SUPPORT_RUN(L)                                                                                           \
    case L: {                                                                                                    \
        for (Py_ssize_t t = a; t < b; t++) {                                                                     \
            uint32_t w[6] = {0, 0, 0, 0, 0, 0};                                                                  \
            for (int j = 0; j < (L) / 4; j++) w[j] = pre[j * HASH_TILE + t];                                     \
            for (int j = 0; j < (L) % 4; j++) w[(L) / 4 + j] = pre[(3 + j) * HASH_TILE + t];                     \
            uint32_t count = 0;                                                                                  \
            if (full) {                                                                                          \
                for (Py_ssize_t i = 0; i < m; i++) {                                                             \
                    SUPPORT_HASH(L)                                                                              \
                    count += h == values[i];                                                                     \
                }                                                                                                \
            } else {                                                                                             \
                for (Py_ssize_t i = 0; i < m; i++) {                                                             \
                    SUPPORT_HASH(L)                                                                              \
                    const double x = (double)h, r = x - floor(x * inverse) * gd;                                 \
                    count += (r >= gd ? r - gd : r) == fractions[i];                                             \
                }                                                                                                \
            }                                                                                                    \
            counts[t] += count;                                                                                  \
        }                                                                                                        \
        break;                                                                                                   \
    }
#define SUPPORT_BODY                                                                                             \
    const int full = g == 4294967296ULL;                                                                         \
    const double gd = (double)g, inverse = 1.0 / gd;                                                             \
    for (int r = 0; r < runs; r++) {                                                                             \
        const Py_ssize_t a = run_start[r], b = run_start[r + 1];                                                 \
        switch (run_length[r]) {                                                                                 \
            SUPPORT_RUN(1) SUPPORT_RUN(2) SUPPORT_RUN(3) SUPPORT_RUN(4) SUPPORT_RUN(5) SUPPORT_RUN(6)            \
            SUPPORT_RUN(7) SUPPORT_RUN(8) SUPPORT_RUN(9) SUPPORT_RUN(10) SUPPORT_RUN(11) SUPPORT_RUN(12)          \
            SUPPORT_RUN(13) SUPPORT_RUN(14) SUPPORT_RUN(15)                                                      \
        }                                                                                                        \
    }

/* One block of m users (seeds, values as uint32) against one tile's values: counts[t] += the block's matches. */
static void support_portable(const uint32_t *restrict seeds, const uint32_t *restrict values,
                             const double *restrict fractions, Py_ssize_t m, uint64_t g, const uint32_t *restrict pre,
                             const Py_ssize_t *run_start, const int *run_length, int runs,
                             int64_t *restrict counts) { SUPPORT_BODY }

static void (*support_of)(const uint32_t *restrict, const uint32_t *restrict, const double *restrict, Py_ssize_t,
                          uint64_t, const uint32_t *restrict, const Py_ssize_t *, const int *, int,
                          int64_t *restrict) = support_portable;

#ifdef HAVE_AVX_PATH
/* The same counts, 8 users a vector: the hash in 32-bit lanes, the remainder in two vectors of 4 doubles (h as a
   signed int plus 2^31), each comparison's lanes counted from its mask; the last m % 8 users by support_portable. */
__attribute__((target("avx2,popcnt"))) static void support_avx2(const uint32_t *restrict seeds,
                                                                 const uint32_t *restrict values,
                                                                 const double *restrict fractions, Py_ssize_t m,
                                                                 uint64_t g, const uint32_t *restrict pre,
                                                                 const Py_ssize_t *run_start, const int *run_length,
                                                                 int runs, int64_t *restrict counts) {
    const Py_ssize_t m8 = m - m % 8;
    const int full = g == 4294967296ULL;
    const __m256d gd = _mm256_set1_pd((double)g), inverse = _mm256_set1_pd(1.0 / (double)g);
    const __m256d two31 = _mm256_set1_pd(2147483648.0);
    const __m256i flip = _mm256_set1_epi32((int)0x80000000u), p1 = _mm256_set1_epi32((int)XXH_P1);
    const __m256i p2 = _mm256_set1_epi32((int)XXH_P2), p3 = _mm256_set1_epi32((int)XXH_P3);
    const __m256i p4 = _mm256_set1_epi32((int)XXH_P4);
    for (int r = 0; r < runs; r++) {
        const int L = run_length[r], words = L / 4, bytes = L % 4;
        for (Py_ssize_t t = run_start[r]; t < run_start[r + 1]; t++) {
            __m256i w[6];
            for (int j = 0; j < words; j++) w[j] = _mm256_set1_epi32((int)pre[j * HASH_TILE + t]);
            for (int j = 0; j < bytes; j++) w[words + j] = _mm256_set1_epi32((int)pre[(3 + j) * HASH_TILE + t]);
            const __m256i start = _mm256_set1_epi32((int)(XXH_P5 + (uint32_t)L));
            int64_t count = 0;
            for (Py_ssize_t i = 0; i < m8; i += 8) {
                __m256i h = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(seeds + i)), start);
                for (int j = 0; j < words; j++) {
                    h = _mm256_add_epi32(h, w[j]);
                    h = _mm256_mullo_epi32(_mm256_or_si256(_mm256_slli_epi32(h, 17), _mm256_srli_epi32(h, 15)), p4);
                }
                for (int j = 0; j < bytes; j++) {
                    h = _mm256_add_epi32(h, w[words + j]);
                    h = _mm256_mullo_epi32(_mm256_or_si256(_mm256_slli_epi32(h, 11), _mm256_srli_epi32(h, 21)), p1);
                }
                h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32(h, 15)), p2);
                h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_srli_epi32(h, 13)), p3);
                h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
                if (full) {
                    const __m256i equal = _mm256_cmpeq_epi32(h, _mm256_loadu_si256((const __m256i *)(values + i)));
                    count += __builtin_popcount((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(equal)));
                    continue;
                }
                const __m256i shifted = _mm256_xor_si256(h, flip);
                for (int half = 0; half < 2; half++) {
                    const __m128i part = half ? _mm256_extracti128_si256(shifted, 1) : _mm256_castsi256_si128(shifted);
                    const __m256d x = _mm256_add_pd(_mm256_cvtepi32_pd(part), two31);
                    const __m256d q = _mm256_round_pd(_mm256_mul_pd(x, inverse), _MM_FROUND_TO_NEG_INF |
                                                      _MM_FROUND_NO_EXC);
                    __m256d rest = _mm256_sub_pd(x, _mm256_mul_pd(q, gd));
                    rest = _mm256_sub_pd(rest, _mm256_and_pd(_mm256_cmp_pd(rest, gd, _CMP_GE_OQ), gd));
                    const __m256d equal = _mm256_cmp_pd(rest, _mm256_loadu_pd(fractions + i + 4 * half), _CMP_EQ_OQ);
                    count += __builtin_popcount((unsigned)_mm256_movemask_pd(equal));
                }
            }
            counts[t] += count;
        }
    }
    if (m8 < m)
        support_portable(seeds + m8, values + m8, fractions + m8, m - m8, g, pre, run_start, run_length, runs, counts);
}
#endif

#ifdef HAVE_AVX_PATH
/* The same counts, 16 users a vector (AVX-512F: rotations, unsigned conversions and masks of its own); the last
   m % 16 users by support_portable. */
__attribute__((target("avx512f"))) static void support_avx512(const uint32_t *restrict seeds,
                                                               const uint32_t *restrict values,
                                                               const double *restrict fractions, Py_ssize_t m,
                                                               uint64_t g, const uint32_t *restrict pre,
                                                               const Py_ssize_t *run_start, const int *run_length,
                                                               int runs, int64_t *restrict counts) {
    const Py_ssize_t m16 = m - m % 16;
    const int full = g == 4294967296ULL;
    const __m512d gd = _mm512_set1_pd((double)g), inverse = _mm512_set1_pd(1.0 / (double)g);
    const __m512i p1 = _mm512_set1_epi32((int)XXH_P1), p2 = _mm512_set1_epi32((int)XXH_P2);
    const __m512i p3 = _mm512_set1_epi32((int)XXH_P3), p4 = _mm512_set1_epi32((int)XXH_P4);
    for (int r = 0; r < runs; r++) {
        const int L = run_length[r], words = L / 4, bytes = L % 4;
        for (Py_ssize_t t = run_start[r]; t < run_start[r + 1]; t++) {
            __m512i w[6];
            for (int j = 0; j < words; j++) w[j] = _mm512_set1_epi32((int)pre[j * HASH_TILE + t]);
            for (int j = 0; j < bytes; j++) w[words + j] = _mm512_set1_epi32((int)pre[(3 + j) * HASH_TILE + t]);
            const __m512i start = _mm512_set1_epi32((int)(XXH_P5 + (uint32_t)L));
            int64_t count = 0;
            for (Py_ssize_t i = 0; i < m16; i += 16) {
                __m512i h = _mm512_add_epi32(_mm512_loadu_si512((const void *)(seeds + i)), start);
                for (int j = 0; j < words; j++)
                    h = _mm512_mullo_epi32(_mm512_rol_epi32(_mm512_add_epi32(h, w[j]), 17), p4);
                for (int j = 0; j < bytes; j++)
                    h = _mm512_mullo_epi32(_mm512_rol_epi32(_mm512_add_epi32(h, w[words + j]), 11), p1);
                h = _mm512_mullo_epi32(_mm512_xor_si512(h, _mm512_srli_epi32(h, 15)), p2);
                h = _mm512_mullo_epi32(_mm512_xor_si512(h, _mm512_srli_epi32(h, 13)), p3);
                h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
                if (full) {
                    count += __builtin_popcount(
                        (unsigned)_mm512_cmpeq_epi32_mask(h, _mm512_loadu_si512((const void *)(values + i))));
                    continue;
                }
                for (int half = 0; half < 2; half++) {
                    const __m256i part = half ? _mm512_extracti64x4_epi64(h, 1) : _mm512_castsi512_si256(h);
                    const __m512d x = _mm512_cvtepu32_pd(part);
                    const __m512d q = _mm512_roundscale_pd(_mm512_mul_pd(x, inverse),
                                                           _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
                    __m512d rest = _mm512_sub_pd(x, _mm512_mul_pd(q, gd));
                    rest = _mm512_mask_sub_pd(rest, _mm512_cmp_pd_mask(rest, gd, _CMP_GE_OQ), rest, gd);
                    count += __builtin_popcount((unsigned)_mm512_cmp_pd_mask(
                        rest, _mm512_loadu_pd(fractions + i + 8 * half), _CMP_EQ_OQ));
                }
            }
            counts[t] += count;
        }
    }
    if (m16 < m)
        support_portable(seeds + m16, values + m16, fractions + m16, m - m16, g, pre, run_start, run_length, runs,
                         counts);
}
#endif

static void support_tiles(const uint32_t *seeds, const int64_t *values, int64_t *out, Py_ssize_t n, Py_ssize_t k,
                          uint64_t g, uint32_t *pre, uint32_t *block, double *fractions) {
    for (Py_ssize_t t0 = 0; t0 < k; t0 += HASH_TILE) {
        const Py_ssize_t size = k - t0 < HASH_TILE ? k - t0 : HASH_TILE;
        Py_ssize_t run_start[HASH_LENGTH_MAX + 2];
        int run_length[HASH_LENGTH_MAX + 1];
        const int runs = tile_words(t0, size, pre, run_start, run_length);
        for (Py_ssize_t i0 = 0; i0 < n; i0 += SUPPORT_BLOCK) {
            const Py_ssize_t m = n - i0 < SUPPORT_BLOCK ? n - i0 : SUPPORT_BLOCK;
            for (Py_ssize_t i = 0; i < m; i++) block[i] = (uint32_t)values[i0 + i];
            for (Py_ssize_t i = 0; i < m; i++) fractions[i] = (double)values[i0 + i];
            support_of(seeds + i0, block, fractions, m, g, pre, run_start, run_length, runs, out + t0);
        }
    }
}

/* xxh32 of one value's decimal string (at most HASH_LENGTH_MAX digits) under one seed, as xxh32.py's
   _xxh32_decimal_fixed: h = seed + P5 + len, the 4-byte words, the remaining bytes, the avalanche. */
static uint32_t xxh32_decimal_one(uint64_t v, uint32_t seed) {
    unsigned char digits[HASH_LENGTH_MAX + 1], text[HASH_LENGTH_MAX + 1];
    int L = 0;
    do digits[L++] = (unsigned char)('0' + v % 10), v /= 10; while (v && L < HASH_LENGTH_MAX + 1);
    for (int j = 0; j < L; j++) text[j] = digits[L - 1 - j];
    uint32_t h = seed + XXH_P5 + (uint32_t)L;
    int at = 0;
    for (; at + 4 <= L; at += 4) {
        const uint32_t word = (uint32_t)text[at] | (uint32_t)text[at + 1] << 8 | (uint32_t)text[at + 2] << 16 |
                              (uint32_t)text[at + 3] << 24;
        h = ROTL32(h + word * XXH_P3, 17) * XXH_P4;
    }
    for (; at < L; at++) h = ROTL32(h + (uint32_t)text[at] * XXH_P5, 11) * XXH_P1;
    h = (h ^ (h >> 15)) * XXH_P2;
    h = (h ^ (h >> 13)) * XXH_P3;
    return h ^ (h >> 16);
}

static PyObject *hash_support(PyObject *self, PyObject *args) {
    PyObject *seeds_object, *values_object, *out_object;
    Py_ssize_t n, k;
    unsigned long long g;
    if (!PyArg_ParseTuple(args, "OOOnnK:hash_support", &seeds_object, &values_object, &out_object, &n, &k, &g))
        return NULL;
    if (n < 0 || k < 1 || k > 1000000000000000LL || g < 1 || g > 4294967296ULL) {
        PyErr_Format(PyExc_ValueError, "hash_support: n must be >= 0, k in [1, 10^15] and g in [1, 2^32], got %zd, "
                     "%zd, %llu", n, k, g);
        return NULL;
    }
    const BufferArg buffers[3] = {{seeds_object, "seeds", n, &UINT32, 0}, {values_object, "values", n, &INT64, 0},
                                  {out_object, "counts", k, &INT64, 1}};
    Py_buffer views[3];
    if (hold_buffers("hash_support", buffers, 3, views) < 0) return NULL;
    const int64_t *v = views[1].buf;
    Py_ssize_t i = 0;
    while (i < n && v[i] >= 0 && (uint64_t)v[i] < g) i++;
    uint32_t *pre = i < n ? NULL : PyMem_RawMalloc((6 * HASH_TILE + 3 * SUPPORT_BLOCK) * sizeof(uint32_t));
    const int ran = pre != NULL;
    if (i < n)
        PyErr_Format(PyExc_ValueError, "hash_support: values must lie in [0, g), got %lld", (long long)v[i]);
    else if (!ran)
        PyErr_NoMemory();
    else {
        Py_BEGIN_ALLOW_THREADS
        support_tiles(views[0].buf, v, views[2].buf, n, k, g, pre, pre + 6 * HASH_TILE,
                      (double *)(pre + 6 * HASH_TILE + SUPPORT_BLOCK));
        Py_END_ALLOW_THREADS
        PyMem_RawFree(pre);
    }
    release_buffers(views, 3);
    if (!ran) return NULL; /* a value out of range, or no memory: the error is set */
    Py_RETURN_NONE;
}

static PyObject *hash_values(PyObject *self, PyObject *args) {
    PyObject *values_object, *seeds_object, *out_object;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOOn:hash_values", &values_object, &seeds_object, &out_object, &n)) return NULL;
    if (check_count("hash_values", n) < 0) return NULL;
    const BufferArg buffers[3] = {{values_object, "values", n, &INT64, 0}, {seeds_object, "seeds", n, &UINT32, 0},
                                  {out_object, "out", n, &UINT32, 1}};
    Py_buffer views[3];
    if (hold_buffers("hash_values", buffers, 3, views) < 0) return NULL;
    const int64_t *v = views[0].buf;
    const uint32_t *s = views[1].buf;
    uint32_t *o = views[2].buf;
    Py_ssize_t i = 0;
    while (i < n && v[i] >= 0 && v[i] < 1000000000000000LL) i++;
    if (i < n) {
        PyErr_Format(PyExc_ValueError, "hash_values: values must lie in [0, 10^15), got %lld", (long long)v[i]);
    } else {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t j = 0; j < n; j++) o[j] = xxh32_decimal_one((uint64_t)v[j], s[j]);
        Py_END_ALLOW_THREADS
    }
    release_buffers(views, 3);
    if (i < n) return NULL;
    Py_RETURN_NONE;
}

/* Floyd's algorithm for subset selection (privest/protocols/packed.py, _floyd), every row: draws (steps, n) uint32,
   row s the uniform draws in 0..j of step j = others - steps + s (others = k - 1); row i of `packed` (n, width)
   uint8, empty, gets size[i] of the k - 1 values other than secrets[i] (the t-th of them: t, or t + 1 from
   secrets[i] on): from its first step j = others - size[i], value t added, or j if t is in already. The same
   steps as _floyd's numpy ones on the same draws, in the same order. */
static void floyd_rows(const uint32_t *draws, const int64_t *size, const int64_t *secrets, uint8_t *packed,
                       Py_ssize_t n, Py_ssize_t steps, Py_ssize_t width, int64_t others) {
    for (Py_ssize_t s = 0; s < steps; s++) { /* a step of every row in turn: no row waits for its previous step */
        const int64_t j = others - steps + s;
        const uint32_t *step = draws + s * n;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (s < steps - size[i]) continue;
            uint8_t *row = packed + i * width;
            const int64_t x = secrets[i], drawn = (int64_t)step[i] + ((int64_t)step[i] >= x);
            const int64_t value = row[drawn >> 3] & (128u >> (drawn & 7)) ? j + (j >= x) : drawn;
            row[value >> 3] |= (uint8_t)(128u >> (value & 7));
        }
    }
}

static PyObject *floyd_subsets(PyObject *self, PyObject *args) {
    PyObject *draws_object, *size_object, *secrets_object, *packed_object;
    Py_ssize_t n, steps, width, k;
    if (!PyArg_ParseTuple(args, "OOOOnnnn:floyd_subsets", &draws_object, &size_object, &secrets_object,
                          &packed_object, &n, &steps, &width, &k))
        return NULL;
    if (n < 0 || steps < 0 || k < 2 || steps > k - 1 || width != (k + 7) / 8 || (n && steps > PY_SSIZE_T_MAX / n)) {
        PyErr_Format(PyExc_ValueError, "floyd_subsets: need n >= 0, 0 <= steps <= k - 1, k >= 2 and width = ceil(k / "
                     "8), got %zd, %zd, %zd, %zd", n, steps, k, width);
        return NULL;
    }
    const BufferArg buffers[4] = {{draws_object, "draws", n * steps, &UINT32, 0}, {size_object, "size", n, &INT64, 0},
                                  {secrets_object, "secrets", n, &INT64, 0},
                                  {packed_object, "packed", n * width, &UINT8, 1}};
    Py_buffer views[4];
    if (hold_buffers("floyd_subsets", buffers, 4, views) < 0) return NULL;
    const uint32_t *d = views[0].buf;
    const int64_t *z = views[1].buf, *x = views[2].buf;
    const char *bad = NULL;
    for (Py_ssize_t i = 0; i < n && bad == NULL; i++)
        if (z[i] < 0 || z[i] > steps || x[i] < 0 || x[i] >= k) bad = "size must lie in [0, steps], secrets in [0, k)";
    for (Py_ssize_t s = 0; s < steps && bad == NULL; s++)
        for (Py_ssize_t i = 0; i < n && bad == NULL; i++)
            if ((int64_t)d[s * n + i] > k - 1 - steps + s) bad = "draws of step j must lie in [0, j]";
    if (bad != NULL) {
        PyErr_Format(PyExc_ValueError, "floyd_subsets: %s", bad);
    } else {
        Py_BEGIN_ALLOW_THREADS
        floyd_rows(d, z, x, views[3].buf, n, steps, width, k - 1);
        Py_END_ALLOW_THREADS
    }
    release_buffers(views, 4);
    if (bad != NULL) return NULL;
    Py_RETURN_NONE;
}

/* Random words and Laplace noise for SHE (privest/protocols/_laplace.py).

   pcg64_words: numpy's PCG64 (the 128-bit LCG state = state * M + inc, then the XSL-RR output of the new state),
   the words of numpy.random.PCG64.random_raw from the same state, one after another without a call a word.

   laplace_words: each random word turned in place into Laplace noise by a 256-layer ziggurat (Marsaglia and Tsang
   2000) for the exponential: bit 0 the sign, bits 3..10 the layer, bits 11..63 the 53-bit uniform u; |noise| =
   u width[layer] (width already times the scale), accepted where u < accept[layer] (inside the layer's rectangle
   under the density). The words not accepted (about 1.1%, the wedges and the tail) are left as they are and their
   positions written to `rejected` in increasing order, for _laplace.py to finish in numpy. One multiply a word and
   a sign flip: numpy gives the same bits from the same words. */
#define BERNOULLI_DRAWS 32768 /* bernoulli_pcg64's random words drawn at once (256 KiB), below */

#ifdef __SIZEOF_INT128__
#define PCG64_MULTIPLIER (((__uint128_t)2549297995355413924ULL << 64) | 4865540595714422341ULL)

static inline uint64_t pcg64_output(__uint128_t state) {
    const uint64_t folded = (uint64_t)(state >> 64) ^ (uint64_t)state;
    const unsigned rotation = (unsigned)(state >> 122);
    return (folded >> rotation) | (folded << ((64 - rotation) & 63));
}

/* n words of PCG64 from *state (advanced to state n): word i is the output of state i + 1. Four lanes a step apart,
   each advanced four steps at a time (state_{i+4} = M^4 state_i + (M^3 + M^2 + M + 1) inc): the same states in the
   same order, four multiplications in flight rather than one. */
static void pcg64_fill(uint64_t *words, Py_ssize_t n, __uint128_t *state_io, __uint128_t inc) {
    const __uint128_t multiplier = PCG64_MULTIPLIER, m2 = multiplier * multiplier, m4 = m2 * m2;
    const __uint128_t inc4 = (m2 * multiplier + m2 + multiplier + 1) * inc;
    __uint128_t state = *state_io;
    const Py_ssize_t blocks = n / 4;
    if (blocks > 0) {
        __uint128_t lane[4];
        for (int l = 0; l < 4; l++) lane[l] = state = state * multiplier + inc; /* states 1..4 */
        for (Py_ssize_t b = 0; b < blocks; b++) {
            for (int l = 0; l < 4; l++) {
                words[4 * b + l] = pcg64_output(lane[l]);
                if (b + 1 < blocks) lane[l] = lane[l] * m4 + inc4;
            }
        }
        state = lane[3]; /* state 4 blocks = the last block's last */
    }
    for (Py_ssize_t i = 4 * blocks; i < n; i++) {
        state = state * multiplier + inc;
        words[i] = pcg64_output(state);
    }
    *state_io = state;
}

static PyObject *pcg64_words(PyObject *self, PyObject *args) {
    PyObject *out_object;
    Py_ssize_t n;
    unsigned long long state_hi, state_lo, inc_hi, inc_lo;
    if (!PyArg_ParseTuple(args, "OnKKKK:pcg64_words", &out_object, &n, &state_hi, &state_lo, &inc_hi, &inc_lo))
        return NULL;
    if (check_count("pcg64_words", n) < 0) return NULL;
    const BufferArg buffers[1] = {{out_object, "out", n, &UINT64, 1}};
    Py_buffer views[1];
    if (hold_buffers("pcg64_words", buffers, 1, views) < 0) return NULL;
    const __uint128_t inc = ((__uint128_t)inc_hi << 64) | inc_lo;
    __uint128_t state = ((__uint128_t)state_hi << 64) | state_lo;
    Py_BEGIN_ALLOW_THREADS
    pcg64_fill(views[0].buf, n, &state, inc);
    Py_END_ALLOW_THREADS
    release_buffers(views, 1);
    return Py_BuildValue("KK", (unsigned long long)(state >> 64), (unsigned long long)state);
}

/* privest/protocols/packed.py's bernoulli_words on PCG64's words, the same steps on the same words: size words of
   64 lanes, each lane comparing a 53-bit uniform (one bit a random word, most significant first) with Q = target;
   a step draws one random word for every word with undecided lanes, in order; from step first_check on the words
   whose lanes are all decided leave. out (size,) uint64 written; scratch (size,) uint64, each word's undecided lanes.

   The words still drawing are marked in `staying` (a bit a word, ceil(size / 64) words) rather than moved out with a
   list of where they are, and a step's random words are drawn BERNOULLI_DRAWS at a time into `draws`, one buffer
   reused: besides out, size + size / 64 + BERNOULLI_DRAWS words rather than 3 size (with those, sampling OUE, SUE or
   SS at k = 1024 for n = 10^5 users grew the resident set by 118 MiB, 100 MiB now; measured 2026-11-28 as
   benchmarks/bench_peers.py's memory section does). A step visits the staying words in increasing order, as
   bernoulli_words' compacted arrays hold them, and pcg64_fill's words follow one another from its state whatever
   the count asked of it: the same words in the same order as one fill a step. */
static void bernoulli_steps(uint64_t *restrict words, uint64_t *restrict undecided, uint64_t *restrict staying,
                            uint64_t *restrict draws, Py_ssize_t size, uint64_t target, int first_check,
                            __uint128_t *state, __uint128_t inc) {
    const Py_ssize_t groups = (size + 63) / 64;
    for (Py_ssize_t t = 0; t < size; t++) words[t] = 0, undecided[t] = UINT64_MAX;
    for (Py_ssize_t b = 0; b < groups; b++) staying[b] = UINT64_MAX;
    if (size % 64) staying[groups - 1] = (1ULL << (size % 64)) - 1;
    Py_ssize_t active = size;
    for (int step = 0; step < 53 && active > 0; step++) {
        if ((target & ((1ULL << (53 - step)) - 1)) == 0) break;
        const int one = (target >> (52 - step)) & 1, check = step >= first_check;
        Py_ssize_t to_draw = active, filled = 0, used = 0, left = 0;
        for (Py_ssize_t b = 0; b < groups; b++) {
            uint64_t kept = staying[b];
            for (uint64_t bits = kept; bits; bits &= bits - 1) {
                const int i = __builtin_ctzll(bits);
                const Py_ssize_t t = 64 * b + i;
                if (used == filled) {
                    filled = to_draw < BERNOULLI_DRAWS ? to_draw : BERNOULLI_DRAWS;
                    pcg64_fill(draws, filled, state, inc);
                    to_draw -= filled, used = 0;
                }
                const uint64_t draw = draws[used++];
                if (one) {
                    const uint64_t decided = draw & undecided[t];
                    words[t] |= decided;
                    undecided[t] ^= decided;
                } else {
                    undecided[t] &= draw;
                }
                kept ^= (uint64_t)(check && undecided[t] == 0) << i;
            }
            staying[b] = kept;
            left += __builtin_popcountll(kept);
        }
        if (check) active = left;
    }
}

static PyObject *bernoulli_pcg64(PyObject *self, PyObject *args) {
    PyObject *out_object, *scratch_object;
    Py_ssize_t size;
    int first_check;
    unsigned long long target, state_hi, state_lo, inc_hi, inc_lo;
    if (!PyArg_ParseTuple(args, "OOnKiKKKK:bernoulli_pcg64", &out_object, &scratch_object, &size, &target,
                          &first_check, &state_hi, &state_lo, &inc_hi, &inc_lo))
        return NULL;
    if (size < 0 || target == 0 || target >= (1ULL << 53)) {
        PyErr_Format(PyExc_ValueError, "bernoulli_pcg64: size must be >= 0 and target in [1, 2^53), got %zd, %llu",
                     size, target);
        return NULL;
    }
    const BufferArg buffers[2] = {{out_object, "out", size, &UINT64, 1}, {scratch_object, "scratch", size, &UINT64, 1}};
    Py_buffer views[2];
    if (hold_buffers("bernoulli_pcg64", buffers, 2, views) < 0) return NULL;
    uint64_t *draws = PyMem_RawMalloc((BERNOULLI_DRAWS + (size + 63) / 64) * sizeof(uint64_t));
    const int ran = draws != NULL;
    const __uint128_t inc = ((__uint128_t)inc_hi << 64) | inc_lo;
    __uint128_t state = ((__uint128_t)state_hi << 64) | state_lo;
    if (ran) {
        Py_BEGIN_ALLOW_THREADS
        bernoulli_steps(views[0].buf, views[1].buf, draws + BERNOULLI_DRAWS, draws, size, target, first_check, &state,
                        inc);
        Py_END_ALLOW_THREADS
        PyMem_RawFree(draws);
    }
    release_buffers(views, 2);
    if (!ran) return PyErr_NoMemory();
    return Py_BuildValue("KK", (unsigned long long)(state >> 64), (unsigned long long)state);
}
#endif

static PyObject *laplace_words(PyObject *self, PyObject *args) {
    PyObject *words_object, *width_object, *accept_object, *rejected_object;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OOOOn:laplace_words", &words_object, &width_object, &accept_object,
                          &rejected_object, &n))
        return NULL;
    if (check_count("laplace_words", n) < 0) return NULL;
    const BufferArg buffers[4] = {{words_object, "words", n, &UINT64, 1}, {width_object, "width", 256, &FLOAT64, 0},
                                  {accept_object, "accept", 256, &UINT64, 0},
                                  {rejected_object, "rejected", n, &INT64, 1}};
    Py_buffer views[4];
    if (hold_buffers("laplace_words", buffers, 4, views) < 0) return NULL;
    const double *w = views[1].buf;
    const uint64_t *a = views[2].buf;
    uint64_t *in = views[0].buf;
    int64_t *out_rejected = views[3].buf;
    Py_ssize_t count = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint64_t word = in[i], u = word >> 11;
        const unsigned layer = (unsigned)(word >> 3) & 255u;
        const double magnitude = (double)(int64_t)u * w[layer]; /* u < 2^53: exact as a signed conversion */
        uint64_t bits;
        memcpy(&bits, &magnitude, 8);
        const int accepted = u < a[layer];
        in[i] = accepted ? bits ^ (word << 63) : word;
        out_rejected[count] = i;
        count += !accepted;
    }
    Py_END_ALLOW_THREADS
    release_buffers(views, 4);
    return PyLong_FromSsize_t(count);
}

/* The column counts of bit-packed reports (privest/protocols/packed.py, PackedBits.column_counts): counts[b, v] +=
   how many of the n rows (width bytes each) have byte b equal to v, for the caller to spread over the byte's bits.
   counts (width, 256) int64, added to. */
static PyObject *byte_histograms(PyObject *self, PyObject *args) {
    PyObject *bits_object, *counts_object;
    Py_ssize_t n, width;
    if (!PyArg_ParseTuple(args, "OOnn:byte_histograms", &bits_object, &counts_object, &n, &width)) return NULL;
    if (n < 0 || width < 1) {
        PyErr_Format(PyExc_ValueError, "byte_histograms: n must be >= 0 and width >= 1, got %zd, %zd", n, width);
        return NULL;
    }
    const BufferArg buffers[2] = {{bits_object, "bits", n * width, &UINT8, 0},
                                  {counts_object, "counts", width * 256, &INT64, 1}};
    Py_buffer views[2];
    if (hold_buffers("byte_histograms", buffers, 2, views) < 0) return NULL;
    const uint8_t *b = views[0].buf;
    int64_t *c = views[1].buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < width; j++) c[j * 256 + b[i * width + j]]++;
    Py_END_ALLOW_THREADS
    release_buffers(views, 2);
    Py_RETURN_NONE;
}

#ifdef HAVE_AVX_PATH
static int has_nibble_lookups(void) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni");
}
#endif

/* For tests: local hashing's support on AVX-512 where the CPU has it (True) or on AVX2 (False), once use_vectors
   chose the vector paths; returns whether AVX-512 is now used. */
static PyObject *use_avx512_support(PyObject *self, PyObject *arg) {
    int wanted = PyObject_IsTrue(arg);
    if (wanted < 0) return NULL;
#ifdef HAVE_AVX_PATH
    if (support_of != support_portable && __builtin_cpu_supports("avx2"))
        support_of = wanted && __builtin_cpu_supports("avx512f") ? support_avx512 : support_avx2;
    return PyBool_FromLong(support_of == support_avx512);
#else
    Py_RETURN_FALSE;
#endif
}

static PyObject *use_nibble_lookups(PyObject *self, PyObject *arg) {
    int wanted = PyObject_IsTrue(arg);
    if (wanted < 0) return NULL;
#ifdef HAVE_AVX_PATH
    nibble_lookups = wanted && has_nibble_lookups();
#endif
    return PyBool_FromLong(nibble_lookups);
}

static PyObject *bits_sums_path(PyObject *self, PyObject *unused) {
    return PyUnicode_FromString(nibble_lookups ? "avx512 nibbles"
                                : transpose_groups == transpose_groups_portable ? "portable" : "avx2");
}

static PyObject *vector_width(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(rows_update == rows_update_portable ? 64 : 256);
}

static PyObject *use_vectors(PyObject *self, PyObject *arg) {
    int wanted = PyObject_IsTrue(arg);
    if (wanted < 0) return NULL;
    rows_update = rows_update_portable, add_rows = add_rows_portable, log_block = log_block_portable;
    hash_rows = hash_rows_portable, members_of = members_portable, support_of = support_portable,
    transpose_groups = transpose_groups_portable,
    subset_sums = subset_sums_portable, copy_planes = copy_planes_portable, nibble_lookups = 0;
#ifdef HAVE_AVX_PATH
    summarise = summarise_portable, strided_dot = strided_dot_portable;
    if (wanted && __builtin_cpu_supports("avx"))
        rows_update = rows_update_avx, add_rows = add_rows_avx, summarise = summarise_avx, strided_dot = strided_dot_avx;
    if (wanted && __builtin_cpu_supports("avx2"))
        log_block = log_block_avx2, hash_rows = hash_rows_avx2, members_of = members_avx2,
        transpose_groups = transpose_groups_avx2, subset_sums = subset_sums_avx2, support_of = support_avx2;
    if (wanted && __builtin_cpu_supports("avx512f")) copy_planes = copy_planes_avx512, support_of = support_avx512;
    if (wanted) nibble_lookups = has_nibble_lookups();
#endif
    return vector_width(self, NULL);
}

static PyMethodDef methods[] = {
    {"ibu_updates", ibu_updates, METH_VARARGS,
     "ibu_updates(G, w, T, M, ratio, k, m, b, strided=False): b IBU updates from T[0] and M[0] into rows 1..b of T\n"
     "and M; strided: G ratio's dot products as 16 partial sums (the order for large G) rather than in order.\n\n"
     "G (k, m) the mechanism's columns (read once an update for both products), w (m,) the report weights, T (b + 1, k),\n"
     "M (b + 1, m) and ratio (m,) writable: every array C-contiguous float64."},
    {"ibu_run", ibu_run, METH_VARARGS,
     "ibu_run(G, w, work, k, m, delta, max_iter, strided, offset) -> (t, L, capped): IBU from theta^0 = work[0 .. k)\n"
     "and m^0 = G^T theta^0 = work[2 k .. 2 k + m) to its stop (|L^t - L^(t-1)| < delta with L^t = sum_z w[z] log\n"
     "m^t[z] + offset, or t = max_iter), the updates of ibu_updates; theta^t normalised written to work[0 .. k).\n"
     "G (k, m) and w (m,) read, work (2 k + 4 m + WORK_PAD,) written: C-contiguous float64."},
    {"ibu_matrix", ibu_matrix, METH_VARARGS,
     "ibu_matrix(A, w, work, k, m, f, atol, delta, max_iter, strided) -> (t, L, capped) or None: A checked (entries\n"
     ">= 0, rows summing to 1 within atol, every column with a positive entry) and w (every weight positive and\n"
     "finite) in one pass that also sums m^0 = A^T (f, ..., f); then ibu_run from theta^0 = (f, ..., f), theta^t\n"
     "normalised written to work[0 .. k) (work as ibu_run's). None, having run nothing, where a check fails."},
    {"combine_rows", combine_rows, METH_VARARGS,
     "combine_rows(G, s, out, k, m): out[z] = sum_x s[x] G[x, z], each sum in the order x = 0, 1, ... (G^T s, as\n"
     "ibu_updates sums it).\n\nG (k, m) and s (k,) read, out (m,) written: every array C-contiguous float64."},
    {"mechanism_summary", mechanism_summary, METH_VARARGS,
     "mechanism_summary(A, column_max, k, m[, product, f]) -> (entries_ok, worst_error, worst_row): one pass over A\n"
     "(k, m): whether every entry is >= 0 (none NaN), the largest |row sum - 1| (inf or NaN if an entry is) and its\n"
     "row; each column's largest entry written to column_max (m,); with product (m,), sum_x f A[x, z] written to it\n"
     "as combine_rows sums it (IBU's first product from a uniform start f). A read, column_max and product written:\n"
     "C-contiguous float64."},
    {"bits_pass", bits_pass, METH_VARARGS,
     "bits_pass(bits, w, T, H, m, B, low, gap[, carry]) -> (L, R): one GIBU pass over the m rows of one bit-packed\n"
     "group (bits (m, B) uint8): d_i = low + gap sum_b T[b, bits[i, b]], L = sum_i w_i log d_i, R = sum_i w_i / d_i,\n"
     "and H[b, bits[i, b]] += gap w_i / d_i. w (m,), T (B, 256) read, H (B, 256) added to: C-contiguous float64.\n"
     "carry: a mask of byte positions (bit b for position b < 64) whose values mostly repeat from row to row, summed\n"
     "in a register while they do (the same additions in the same order; used where B % 8 leaves a short block)."},
    {"bits_sums", bits_sums, METH_VARARGS,
     "bits_sums(bits, w, N, sums, m, B, low, gap) -> (L, R): bits_pass with the update's per-secret sums added to\n"
     "sums (8 B,) directly: sums[x] += gap sum_{i: bit x of row i set} w_i / d_i (bit x: bit 7 - x % 8 of byte\n"
     "x // 8), summed by tables over groups of 8 rows. N (2 B, 16): theta's nibble tables, from which T[b, v] =\n"
     "N[2 b, v & 15] + N[2 b + 1, v >> 4] (bits_pass's T, with those tables the same L and R). w (m,), N read, sums\n"
     "written: C-contiguous float64."},
    {"log_values", log_values, METH_VARARGS,
     "log_values(x, out, n): out = log(x) as bits_pass takes it (within 1 ulp of libm; x, out C-contiguous float64)."},
    {"hash_table", hash_table, METH_VARARGS,
     "hash_table(seeds, out, n, k): out[i k + v] = xxh32(str(v).encode(), seeds[i]) for i < n and v < k (k <= 10^15),\n"
     "local hashing's hash table (privest/protocols/xxh32.py). seeds (n,) read, out (n, k) written: C-contiguous\n"
     "uint32."},
    {"hash_members", hash_members, METH_VARARGS,
     "hash_members(seeds, values, out, n, k, g): out[i k + v] = (xxh32(str(v).encode(), seeds[i]) mod g == values[i])\n"
     "for i < n and v < k (k <= 10^15, 1 <= g <= 2^32), local hashing's membership (privest/protocols/hashing.py).\n"
     "seeds (n,) uint32 and values (n,) int64 read, out (n, k) bool written: C-contiguous."},
    {"hash_support", hash_support, METH_VARARGS,
     "hash_support(seeds, values, counts, n, k, g): counts[v] += #{i < n: xxh32(str(v).encode(), seeds[i]) mod g ==\n"
     "values[i]} for v < k, local hashing's support (privest/protocols/hashing.py) without the membership matrix.\n"
     "seeds (n,) uint32 and values (n,) int64 in [0, g) read, counts (k,) int64 added to: C-contiguous."},
    {"hash_values", hash_values, METH_VARARGS,
     "hash_values(values, seeds, out, n): out[i] = xxh32(str(values[i]).encode(), seeds[i]) for i < n (values in\n"
     "[0, 10^15)). values (n,) int64 and seeds (n,) uint32 read, out (n,) uint32 written: C-contiguous."},
    {"floyd_subsets", floyd_subsets, METH_VARARGS,
     "floyd_subsets(draws, size, secrets, packed, n, steps, width, k): Floyd's algorithm into the empty packed rows\n"
     "(n, width) uint8, row i size[i] of the k - 1 values other than secrets[i], from the draws (steps, n) of steps\n"
     "j = k - 1 - steps .. k - 2 (privest/protocols/packed.py, _floyd). draws uint32, size and secrets int64:\n"
     "C-contiguous."},
#ifdef __SIZEOF_INT128__
    {"bernoulli_pcg64", bernoulli_pcg64, METH_VARARGS,
     "bernoulli_pcg64(out, scratch, size, target, first_check, state_hi, state_lo, inc_hi, inc_lo) -> (state_hi,\n"
     "state_lo): privest/protocols/packed.py's bernoulli_words (bits 1 with probability target / 2^53) on the words\n"
     "of numpy's PCG64 from that state, the same steps on the same words; out (size,) and scratch (size,) uint64; the\n"
     "random words drawn BERNOULLI_DRAWS at a time."},
    {"pcg64_words", pcg64_words, METH_VARARGS,
     "pcg64_words(out, n, state_hi, state_lo, inc_hi, inc_lo) -> (state_hi, state_lo): n words of numpy's PCG64 from\n"
     "that state and increment (as its random_raw gives them) written to out (n,) uint64; returns the new state."},
#endif
    {"laplace_words", laplace_words, METH_VARARGS,
     "laplace_words(words, width, accept, rejected, n) -> count: the ziggurat's first try on each random word, in\n"
     "place (privest/protocols/_laplace.py): accepted words become float64 noise; the positions of the others, left\n"
     "as they are, written to rejected (n,) int64; returns their count. width (256,) float64, accept (256,) uint64."},
    {"byte_histograms", byte_histograms, METH_VARARGS,
     "byte_histograms(bits, counts, n, width): counts[b, v] += #{i < n: bits[i, b] == v}, the per-byte histograms of\n"
     "bit-packed reports (privest/protocols/packed.py). bits (n, width) uint8 read, counts (width, 256) int64 added to."},
    {"use_avx512_support", use_avx512_support, METH_O,
     "use_avx512_support(flag): hash_support's AVX-512 path where the CPU has it (True) or its AVX2 one (False), on\n"
     "the vector paths, for tests; returns whether AVX-512 is now used."},
    {"bits_sums_path", bits_sums_path, METH_NOARGS,
     "bits_sums_path() -> str: how bits_sums looks its tables up: 'avx512 nibbles' (AVX-512 with VBMI and GFNI, where\n"
     "B is a multiple of 8), 'avx2' or 'portable'. Every path gives the same bits."},
    {"use_nibble_lookups", use_nibble_lookups, METH_O,
     "use_nibble_lookups(flag): bits_sums' AVX-512 nibble path where the CPU has it (True) or not (False: the AVX2 or\n"
     "the portable path, as use_vectors says), for tests; returns whether it is now used."},
    {"vector_width", vector_width, METH_NOARGS, "The bits of the vectors the products run on: 256 (AVX) or 64 (portable C, one double at a time)."},
    {"use_vectors", use_vectors, METH_O,
     "use_vectors(flag): the AVX path where the CPU has it (True, the default) or portable C (False), for tests;\n"
     "returns the vector width now used."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", "IBU's update loop, GIBU's bit-packed pass and local hashing's hash table, compiled.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) {
#ifdef HAVE_AVX_PATH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx"))
        rows_update = rows_update_avx, add_rows = add_rows_avx, summarise = summarise_avx, strided_dot = strided_dot_avx;
    if (__builtin_cpu_supports("avx2"))
        log_block = log_block_avx2, hash_rows = hash_rows_avx2, members_of = members_avx2,
        transpose_groups = transpose_groups_avx2, subset_sums = subset_sums_avx2, support_of = support_avx2;
    if (__builtin_cpu_supports("avx512f")) copy_planes = copy_planes_avx512, support_of = support_avx512;
    nibble_lookups = has_nibble_lookups();
#endif
    PyObject *created = PyModule_Create(&module), *floor = PyFloat_FromDouble(THETA_FLOOR);
    if (created == NULL || floor == NULL || PyModule_AddObjectRef(created, "THETA_FLOOR", floor) < 0 ||
        PyModule_AddIntConstant(created, "WORK_PAD", WORK_PAD) < 0 ||
        PyModule_AddIntConstant(created, "BERNOULLI_DRAWS", BERNOULLI_DRAWS) < 0) {
        Py_XDECREF(floor);
        Py_XDECREF(created);
        return NULL;
    }
    Py_DECREF(floor);
    return created;
}
