/* privest._kernel: the update loop of IBU on a matrix, compiled (privest/estimators.py, _iterate_blocks).

   One call runs b IBU updates (free-will eq. 10) from row 0 of two buffers, T (theta^t) and M (m^t = G^T theta^t):
       ratio = w / M[j];  T[j+1] = T[j] * (G ratio);  M[j+1] = G^T T[j+1]        j = 0 .. b-1
   numpy needs four calls an iteration for this, and their overhead is most of an iteration's cost at k = 100.

   Both products are sums of scaled rows, out[i] = sum_r s[r] A[r, i], summed for each i alone in the order r = 0, 1,
   ... with a multiply then an add (no fused multiply-add, no reassociation). So the result is the same bits whatever
   the path (AVX where the CPU has it, portable C otherwise), the CPU or the BLAS library, and numpy can check it
   (tests/test_estimators.py); it differs from numpy's own products (BLAS sums in another order) in the last bits.
   The loop is bound by reading the matrices from the cache, not by its arithmetic: fused multiply-adds were no
   faster.

   No numpy headers: the arrays come through the buffer protocol. Built by setup.py as an optional extension; without
   a C compiler privest runs the same iteration through numpy. Compiled with -ffp-contract=off (and the pragma below
   for clang), so that the compiler fuses no multiply and add. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF /* clang; GCC takes -ffp-contract=off */

/* out[i] = sum_r s[r] * A[r, i] for i < n, A (rows, n) row-major, for each i in the order r = 0, 1, ...: acc = acc +
   s[r] * A[r, i], the product rounded, then the sum (no fused multiply-add). Portable C: the rows one after another. */
static void combine_rows_portable(const double *restrict A, const double *restrict s, double *restrict out,
                                  Py_ssize_t rows, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) out[i] = 0.0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        const double f = s[r], *restrict row = A + r * n;
        for (Py_ssize_t i = 0; i < n; i++) out[i] += f * row[i];
    }
}

static void (*combine_rows)(const double *restrict, const double *restrict, double *restrict, Py_ssize_t,
                            Py_ssize_t) = combine_rows_portable;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX_PATH 1

/* The same sums with AVX: 8 vectors of 4 outputs held in registers while the rows go by, then one vector at a time,
   then the last few outputs side by side. The same products and sums in the same order: the same bits. */
__attribute__((target("avx"))) static void combine_rows_avx(const double *restrict A,
                                                                    const double *restrict s, double *restrict out,
                                                                    Py_ssize_t rows, Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        const double *restrict column = A + i;
        for (Py_ssize_t r = 0; r < rows; r++, column += n) {
            const __m256d f = _mm256_broadcast_sd(s + r);
            a0 = _mm256_add_pd(a0, _mm256_mul_pd(f, _mm256_loadu_pd(column)));
            a1 = _mm256_add_pd(a1, _mm256_mul_pd(f, _mm256_loadu_pd(column + 4)));
            a2 = _mm256_add_pd(a2, _mm256_mul_pd(f, _mm256_loadu_pd(column + 8)));
            a3 = _mm256_add_pd(a3, _mm256_mul_pd(f, _mm256_loadu_pd(column + 12)));
            a4 = _mm256_add_pd(a4, _mm256_mul_pd(f, _mm256_loadu_pd(column + 16)));
            a5 = _mm256_add_pd(a5, _mm256_mul_pd(f, _mm256_loadu_pd(column + 20)));
            a6 = _mm256_add_pd(a6, _mm256_mul_pd(f, _mm256_loadu_pd(column + 24)));
            a7 = _mm256_add_pd(a7, _mm256_mul_pd(f, _mm256_loadu_pd(column + 28)));
        }
        _mm256_storeu_pd(out + i, a0);
        _mm256_storeu_pd(out + i + 4, a1);
        _mm256_storeu_pd(out + i + 8, a2);
        _mm256_storeu_pd(out + i + 12, a3);
        _mm256_storeu_pd(out + i + 16, a4);
        _mm256_storeu_pd(out + i + 20, a5);
        _mm256_storeu_pd(out + i + 24, a6);
        _mm256_storeu_pd(out + i + 28, a7);
    }
    for (; i + 4 <= n; i += 4) {
        __m256d a0 = _mm256_setzero_pd();
        const double *restrict column = A + i;
        for (Py_ssize_t r = 0; r < rows; r++, column += n)
            a0 = _mm256_add_pd(a0, _mm256_mul_pd(_mm256_broadcast_sd(s + r), _mm256_loadu_pd(column)));
        _mm256_storeu_pd(out + i, a0);
    }
    if (i < n) { /* the last n - i < 4 outputs, side by side */
        double a[4] = {0.0, 0.0, 0.0, 0.0};
        const Py_ssize_t left = n - i;
        for (Py_ssize_t r = 0; r < rows; r++)
            for (Py_ssize_t c = 0; c < left; c++) a[c] += s[r] * A[r * n + i + c];
        memcpy(out + i, a, left * sizeof(double));
    }
}
#endif

static void updates(const double *G, const double *GT, const double *w, double *T, double *M, double *ratio,
                    Py_ssize_t k, Py_ssize_t m, Py_ssize_t b) {
    for (Py_ssize_t j = 0; j < b; j++) {
        const double *m_old = M + j * m, *theta_old = T + j * k;
        double *theta_new = T + (j + 1) * k, *m_new = M + (j + 1) * m;
        for (Py_ssize_t z = 0; z < m; z++) ratio[z] = w[z] / m_old[z];
        combine_rows(GT, ratio, theta_new, m, k); /* G ratio: the rows of G^T scaled by ratio */
        for (Py_ssize_t x = 0; x < k; x++) theta_new[x] *= theta_old[x];
        combine_rows(G, theta_new, m_new, k, m); /* G^T theta: the rows of G scaled by theta */
    }
}

static const char *const NAMES[6] = {"G", "GT", "w", "T", "M", "ratio"};

static PyObject *ibu_updates(PyObject *self, PyObject *args) {
    PyObject *objects[6];
    Py_ssize_t k, m, b;
    if (!PyArg_ParseTuple(args, "OOOOOOnnn:ibu_updates", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4], &objects[5], &k, &m, &b))
        return NULL;
    if (k < 1 || m < 1 || b < 0) {
        PyErr_Format(PyExc_ValueError, "ibu_updates: k and m must be >= 1 and b >= 0, got %zd, %zd, %zd", k, m, b);
        return NULL;
    }
    const Py_ssize_t needed[6] = {k * m, m * k, m, (b + 1) * k, (b + 1) * m, m};
    Py_buffer views[6];
    int held = 0, ok = 1;
    for (; held < 6; held++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (held >= 3 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objects[held], &views[held], flags) < 0) {
            ok = 0;
            break;
        }
        if (views[held].itemsize != 8 || views[held].format == NULL || strcmp(views[held].format, "d") != 0 ||
            views[held].len < needed[held] * 8) {
            PyErr_Format(PyExc_ValueError, "ibu_updates: %s must be a C-contiguous float64 array of at least %zd values",
                         NAMES[held], needed[held]);
            held++;
            ok = 0;
            break;
        }
    }
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        updates(views[0].buf, views[1].buf, views[2].buf, views[3].buf, views[4].buf, views[5].buf, k, m, b);
        Py_END_ALLOW_THREADS
    }
    for (int i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyObject *vector_width(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(combine_rows == combine_rows_portable ? 64 : 256);
}

static PyObject *use_vectors(PyObject *self, PyObject *arg) {
    int wanted = PyObject_IsTrue(arg);
    if (wanted < 0) return NULL;
    combine_rows = combine_rows_portable;
#ifdef HAVE_AVX_PATH
    if (wanted && __builtin_cpu_supports("avx")) combine_rows = combine_rows_avx;
#endif
    return vector_width(self, NULL);
}

static PyMethodDef methods[] = {
    {"ibu_updates", ibu_updates, METH_VARARGS,
     "ibu_updates(G, GT, w, T, M, ratio, k, m, b): b IBU updates from T[0] and M[0] into rows 1..b of T and M.\n\n"
     "G (k, m) and GT (m, k) the mechanism's columns and their transpose, w (m,) the report weights, T (b + 1, k),\n"
     "M (b + 1, m) and ratio (m,) writable: every array C-contiguous float64."},
    {"vector_width", vector_width, METH_NOARGS, "The bits of the vectors the products run on: 256 (AVX) or 64 (portable C, one double at a time)."},
    {"use_vectors", use_vectors, METH_O,
     "use_vectors(flag): the AVX path where the CPU has it (True, the default) or portable C (False), for tests;\n"
     "returns the vector width now used."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel", "IBU's update loop, compiled.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) {
#ifdef HAVE_AVX_PATH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx")) combine_rows = combine_rows_avx;
#endif
    return PyModule_Create(&module);
}
