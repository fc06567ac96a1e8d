/* A Parquet reader for flat files as Spark writes them by default: the Thrift compact footer
 * (FileMetaData, RowGroup, ColumnChunk, ColumnMetaData with statistics), data pages v1 and v2,
 * PLAIN and dictionary (PLAIN_DICTIONARY / RLE_DICTIONARY) values, RLE/bit-packed definition levels,
 * uncompressed, snappy, gzip and zstd pages. Physical types BOOLEAN, INT32, INT64, FLOAT, DOUBLE and
 * BYTE_ARRAY; optional columns (max definition level 1). Nested schemas are refused. Every length
 * and offset read from the file is checked against the bytes given: corrupt input is an error with a
 * message, never a read out of bounds. */
#ifndef CSD_QUERY_PARQUET_H
#define CSD_QUERY_PARQUET_H

#include <stddef.h>
#include <stdint.h>

struct csd_bufpool;

/* physical types (parquet.thrift Type) */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
       PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7 };

typedef struct csd_pq_leaf {
    char *name;
    int ptype;               /* PQ_* */
    int optional;            /* max definition level 1 */
} csd_pq_leaf;

typedef struct csd_pq_chunk {
    int ptype, codec;
    uint64_t num_values;
    uint64_t start, size;    /* bytes [start, start + size) of the file: dictionary page, then data pages */
    int has_min, has_max;    /* statistics, PLAIN-encoded values */
    const uint8_t *min, *max;
    uint32_t min_len, max_len;
    int has_nulls;           /* 1 unless statistics say null_count = 0 */
} csd_pq_chunk;

typedef struct csd_pq_rg {
    uint64_t num_rows;
    csd_pq_chunk *chunks;    /* one per leaf */
} csd_pq_rg;

typedef struct csd_pq_file {
    uint8_t *footer;         /* a copy of the footer bytes; statistics point into it */
    csd_pq_leaf *leaves;
    uint32_t n_leaves;
    csd_pq_rg *rgs;
    uint32_t n_rgs;
    uint64_t num_rows;
} csd_pq_file;

/* The integers of one decoded data page (rows [first, first + n)): known = 1 with the least and
 * greatest of its values; all_null = 1 when it has none; both 0 when not taken (indices). */
typedef struct csd_pq_pstat {
    uint64_t first, n;
    int64_t min, max;
    int known, all_null;
} csd_pq_pstat;

/* One column chunk decoded: n values, valid[i] = 0 for NULL. */
typedef struct csd_pq_values {
    uint64_t n;
    uint64_t cap;            /* rows the arrays were allocated for (csd_pq_big_alloc sizes) */
    int huge;                /* the arrays' csd_pq_big_alloc huge flag */
    uint8_t *valid;
    int64_t *i;              /* BOOLEAN (0/1), INT32, INT64; NULL when ix holds them */
    uint8_t *ix;             /* csd_pq_read_ix: per row, its index into dict_i (a dictionary of at most
                              * 256 integers, every page from it): 1 byte a row instead of 8 */
    int64_t *dict_i;
    uint64_t dict_n;
    double *d;               /* FLOAT, DOUBLE */
    const uint8_t **sp;      /* BYTE_ARRAY: pointers into bufs */
    uint32_t *sn;
    uint8_t **bufs;          /* decompressed pages the strings point into */
    size_t n_bufs, cap_bufs;
    uint64_t pages;          /* pages decoded */
    uint64_t decoded;        /* values decoded (rows of the pages not skipped) */
    uint64_t bytes_out;      /* uncompressed page bytes */
    uint64_t skipped_values; /* data pages skipped (no selected row): their values and uncompressed */
    uint64_t skipped_bytes;  /* bytes, as decoding them would have counted them */
    struct csd_bufpool *pool; /* where the arrays came from (NULL = fresh memory), for csd_pq_values_free */
    csd_pq_pstat *pstat;     /* csd_pq_read_threads of an INT32/INT64 chunk: per data page decoded, in
                              * row order (n_pstat of them), else NULL */
    uint64_t n_pstat;
} csd_pq_values;

/* Parse footer bytes (FileMetaData, flen bytes) of a file of file_len bytes: chunk ranges are checked
 * against file_len. 0, or -EINVAL with err. */
int csd_pq_open_footer(csd_pq_file *f, const uint8_t *footer, size_t flen, uint64_t file_len, char *err,
                       size_t errlen);
/* Parse the footer of the file's len bytes. 0, or -EINVAL (not Parquet, corrupt, unsupported) with err. */
int csd_pq_open(csd_pq_file *f, const uint8_t *file, size_t len, char *err, size_t errlen);
void csd_pq_close(csd_pq_file *f);

/* Decode leaf col of row group rg. 0, or -EINVAL / -ENOMEM with err. csd_pq_values_free releases it. */
int csd_pq_read(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                csd_pq_values *out, char *err, size_t errlen);
/* The same, decoding only the data pages that hold a row with sel[row] != 0 (the row group's rows;
 * NULL = all): the rows of a skipped page read as NULL. Late materialization: the columns a filter
 * does not read are decoded only where rows passed it. */
int csd_pq_read_sel(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                    const uint8_t *sel, csd_pq_values *out, char *err, size_t errlen);
/* The same, but integers from a dictionary of at most 256 entries are kept as indices (ix, dict_i)
 * when every page of the chunk uses it: read them with csd_pq_int. */
int csd_pq_read_ix(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                   const uint8_t *sel, csd_pq_values *out, char *err, size_t errlen);
/* csd_pq_read_ix with the arrays from pool (host/bufpool.h; NULL = fresh memory). */
int csd_pq_read_ix_pool(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                        const uint8_t *sel, struct csd_bufpool *pool, csd_pq_values *out, char *err, size_t errlen);
/* csd_pq_read_ix_pool with the chunk's data pages decoded on up to threads host threads (at most 4;
 * a chunk of fewer than 4 data pages on one): the same values, counts and failure (the first in page
 * order) as on one thread. The dictionary page and the walk over the page headers stay on the
 * caller's thread. stats: also each decoded page's least and greatest integer (out->pstat). */
int csd_pq_read_threads(const csd_pq_file *f, const uint8_t *file, size_t len, uint32_t rg, uint32_t col,
                        const uint8_t *sel, struct csd_bufpool *pool, int threads, int stats, csd_pq_values *out,
                        char *err, size_t errlen);
void csd_pq_values_free(csd_pq_values *v);

/* Row r's integer (BOOLEAN, INT32, INT64), either way it is held. */
static inline int64_t csd_pq_int(const csd_pq_values *v, uint64_t r) { return v->ix ? v->dict_i[v->ix[r]] : v->i[r]; }

const char *csd_pq_type_name(int ptype);

/* The RLE/bit-packed hybrid (Encodings.md): n values of width (0..32) bits from [p, end) into out.
 * 0, or -1 when the bytes are corrupt or too few. */
int csd_pq_rle_decode(const uint8_t *p, const uint8_t *end, int width, uint32_t *out, uint64_t n);
/* The same for width 0..8, into bytes. */
int csd_pq_rle_decode8(const uint8_t *p, const uint8_t *end, int width, uint8_t *out, uint64_t n);
/* Definition levels (the hybrid at width 1) of n rows into valid[0..n) as 0/1 bytes: the count of 1s,
 * or -1 when corrupt (a level above 1, too few bytes). */
int64_t csd_pq_rle_levels(const uint8_t *p, const uint8_t *end, uint8_t *valid, uint64_t n);
/* n zeroed bytes; with huge, 2 MiB or more on huge pages where the host offers them (for memory that
 * is all written: a touch faults in 2 MiB); from pool when not NULL (host/bufpool.h). Free with the
 * same pool, n and huge. */
void *csd_pq_big_alloc(struct csd_bufpool *pool, size_t n, int huge);
void csd_pq_big_free(struct csd_bufpool *pool, void *p, size_t n, int huge);

#endif
