/* Bad input from the host: every case gets its status and a message, nothing is lost, and the device
 * serves the next command correctly. */
#include "devutil.h"

static const char DATA[] = "hello smart ssd\nsecond line\n";

static void check_data_intact(csd_device *d, uint64_t id) {
    Smartssd__V1__Response *r = dev_read(d, id, 0, sizeof DATA - 1);
    CHECK(r->status == 0);
    CHECK(r->read_object->data.len == sizeof DATA - 1);
    CHECK(!memcmp(r->read_object->data.data, DATA, sizeof DATA - 1));
    smartssd__v1__response__free_unpacked(r, NULL);
}

static void packets(csd_device *d, uint64_t id) {
    /* garbage: 0xff bytes are an invalid wire type */
    uint8_t garbage[64];
    memset(garbage, 0xff, sizeof garbage);
    EXPECT_STATUS(dev_raw(d, garbage, sizeof garbage, NULL), CSD_BAD_PACKET, "does not decode");
    dev_still_serving(d);

    /* truncated: a valid write packet cut at every length */
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = 0;
    w.data.data = (uint8_t *)DATA;
    w.data.len = sizeof DATA - 1;
    req.tag = 77;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    size_t n = smartssd__v1__request__get_packed_size(&req);
    uint8_t *b = malloc(n);
    smartssd__v1__request__pack(&req, b);
    for (size_t cut = 1; cut < n; cut++) {
        Smartssd__V1__Response *r = dev_raw(d, b, cut, NULL);
        /* A cut at a field boundary can still decode (to a shorter request); anything else is BAD_PACKET.
         * Either way the stored bytes must not change. */
        CHECK((int)r->status == CSD_BAD_PACKET || (int)r->status == CSD_OK || (int)r->status == CSD_UNSUPPORTED ||
              (int)r->status == CSD_INVALID_ARGUMENT || (int)r->status == CSD_NOT_FOUND);
        smartssd__v1__response__free_unpacked(r, NULL);
        check_data_intact(d, id);
    }
    free(b);

    /* empty packet: decodes to a Request with no command */
    EXPECT_STATUS(dev_raw(d, NULL, 0, NULL), CSD_UNSUPPORTED, "unknown or missing command");
    /* unknown opcode: field 99, varint 1 */
    uint8_t unk2[] = { 0x08, 0x05, 0x98, 0x06, 0x01 };   /* tag=5, then field 99 (varint 1) */
    Smartssd__V1__Response *r = dev_raw(d, unk2, sizeof unk2, NULL);
    CHECK((int)r->status == CSD_UNSUPPORTED);
    CHECK(r->tag == 5);
    smartssd__v1__response__free_unpacked(r, NULL);

    /* oversized packet */
    size_t big = (size_t)CSD_MAX_PACKET + 1;
    uint8_t *huge = calloc(1, big);
    EXPECT_STATUS(dev_raw(d, huge, big, NULL), CSD_BAD_PACKET, "exceeds");
    free(huge);
    dev_still_serving(d);
}

/* Appends a protobuf key + length prefix for a length-delimited field. */
static size_t put_len(uint8_t *out, unsigned field, size_t len) {
    size_t n = 0;
    uint64_t v = (uint64_t)field << 3 | 2;
    do { out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); v >>= 7; } while (v);
    v = len;
    do { out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); v >>= 7; } while (v);
    return n;
}

/* A plan whose filter is NOT(NOT(...)) 20000 deep: refused before the decoder recurses into it. */
static void deep_nesting(csd_device *d) {
    size_t cap = 1u << 20;
    uint8_t *a = malloc(cap), *b = malloc(cap);
    size_t n = 0;
    a[n++] = 0x08;          /* Expr.column = 0 */
    a[n++] = 0x00;
    for (int i = 0; i < 20000; i++) {
        /* Unary { op = NOT; arg = <a> } then Expr { unary = <that> } */
        size_t m = 0;
        b[m++] = 0x08;
        b[m++] = 0x01;
        m += put_len(b + m, 2, n);
        memcpy(b + m, a, n);
        m += n;
        size_t k = put_len(a, 4, m);
        memcpy(a + k, b, m);
        n = k + m;
    }
    /* Plan.filter, CreateObject{kind TASKLET, name "plan", plan}, Request.create_object */
    size_t m = put_len(b, 4, n);
    memcpy(b + m, a, n);
    m += n;
    size_t k = 0;
    a[k++] = 0x08;
    a[k++] = 0x02;
    k += put_len(a + k, 2, 4);
    memcpy(a + k, "plan", 4);
    k += 4;
    k += put_len(a + k, 4, m);
    memcpy(a + k, b, m);
    k += m;
    m = put_len(b, 10, k);
    memcpy(b + m, a, k);
    m += k;
    EXPECT_STATUS(dev_raw(d, b, m, NULL), CSD_BAD_PACKET, "deeper");
    free(a);
    free(b);
    dev_still_serving(d);
}

static void times(csd_device *d, uint64_t id) {
    EXPECT_STATUS(dev_set_times(d, 424242, 1, 1), CSD_NOT_FOUND, "no object 424242");
    EXPECT_STATUS(dev_set_times(d, 0, 1, 1), CSD_INVALID_ARGUMENT, "object_id is required");
    uint64_t out = dev_create_output(d, 0);
    EXPECT_STATUS(dev_set_times(d, out, 1, 1), CSD_UNSUPPORTED, "not a data object");
    Smartssd__V1__Request sreq = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__SetTimes st = SMARTSSD__V1__SET_TIMES__INIT;
    st.object_id = id;
    st.set_mtime = 1;
    st.mtime_ms = UINT64_MAX;   /* the FTL's "keep" marker: not a time */
    sreq.command_case = SMARTSSD__V1__REQUEST__COMMAND_SET_TIMES;
    sreq.set_times = &st;
    EXPECT_STATUS(dev_call(d, &sreq, NULL), CSD_INVALID_ARGUMENT, "is not a time");
    EXPECT_STATUS(dev_set_times(d, id, -1, -1), CSD_INVALID_ARGUMENT, "no time to set");
    /* a good one afterwards, only the access time: the mtime stays */
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__StatObject so = SMARTSSD__V1__STAT_OBJECT__INIT;
    so.object_id = id;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
    req.stat = &so;
    Smartssd__V1__Response *r = dev_call(d, &req, NULL);
    uint64_t mtime = r->stat->info->mtime_ms;
    CHECK(mtime > 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(dev_set_times(d, id, -1, 5000), CSD_OK, "");
    r = dev_call(d, &req, NULL);
    CHECK_EQ_U64(r->stat->info->mtime_ms, mtime);
    CHECK_EQ_U64(r->stat->info->atime_ms, 5000);
    smartssd__v1__response__free_unpacked(r, NULL);
    check_data_intact(d, id);
}

static void objects(csd_device *d, uint64_t id) {
    /* unknown object ids */
    EXPECT_STATUS(dev_read(d, 424242, 0, 10), CSD_NOT_FOUND, "no object 424242");
    EXPECT_STATUS(dev_read(d, 0, 0, 10), CSD_INVALID_ARGUMENT, "object_id is required");
    EXPECT_STATUS(dev_read(d, (1ull << 40) + 999, 0, 10), CSD_NOT_FOUND, "no object");
    /* reads past the end, oversized length */
    EXPECT_STATUS(dev_read(d, id, 1000, 1), CSD_OUT_OF_RANGE, "past the end");
    EXPECT_STATUS(dev_read(d, id, 0, (uint64_t)CSD_MAX_PACKET * 4), CSD_INVALID_ARGUMENT, "packet limit");
    /* payload too small for the length asked */
    uint8_t small[8];
    Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
    Smartssd__V1__ReadObject ro = SMARTSSD__V1__READ_OBJECT__INIT;
    ro.object_id = id;
    ro.length = 100;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_READ_OBJECT;
    req.read_object = &ro;
    csd_payload pl = { .out = small, .out_cap = sizeof small };
    EXPECT_STATUS(dev_call(d, &req, &pl), CSD_INVALID_ARGUMENT, "payload buffer");
    /* write past the end (a hole) */
    Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
    w.object_id = id;
    w.offset = 1 << 20;
    w.data.data = (uint8_t *)"x";
    w.data.len = 1;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
    req.write_object = &w;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_OUT_OF_RANGE, "no holes");
    /* data both inline and as payload */
    w.offset = 0;
    csd_payload pin = { .in = "y", .in_len = 1 };
    EXPECT_STATUS(dev_call(d, &req, &pin), CSD_INVALID_ARGUMENT, "both");
    /* names */
    Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
    co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
    co.name = "";
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
    req.create_object = &co;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_INVALID_ARGUMENT, "name is required");
    char longname[1100];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    co.name = longname;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_INVALID_ARGUMENT, "exceeds");
    co.name = "input.txt";
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_ALREADY_EXISTS, "already exists");
    co.kind = 17;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_INVALID_ARGUMENT, "kind must be");
    /* stat needs exactly one key */
    Smartssd__V1__StatObject st = SMARTSSD__V1__STAT_OBJECT__INIT;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_STAT;
    req.stat = &st;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_INVALID_ARGUMENT, "exactly one");
    st.name = "nope";
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_NOT_FOUND, "no object named");
    /* trim past the end */
    Smartssd__V1__TrimObject tr = SMARTSSD__V1__TRIM_OBJECT__INIT;
    tr.object_id = id;
    tr.offset = 10;
    tr.length = 1000;
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_TRIM;
    req.trim = &tr;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_OUT_OF_RANGE, "outside");
    /* rename onto itself's neighbour that does not exist is fine; onto an existing name is not */
    uint64_t other = dev_create_data(d, "other");
    Smartssd__V1__RenameObject rn = SMARTSSD__V1__RENAME_OBJECT__INIT;
    rn.object_id = other;
    rn.new_name = "input.txt";
    req.command_case = SMARTSSD__V1__REQUEST__COMMAND_RENAME;
    req.rename = &rn;
    EXPECT_STATUS(dev_call(d, &req, NULL), CSD_ALREADY_EXISTS, "already exists");
    check_data_intact(d, id);
    dev_still_serving(d);
}

static void tasklets(csd_device *d, uint64_t id) {
    /* unknown tasklet */
    EXPECT_STATUS(dev_create_tasklet(d, "no-such-tasklet", NULL, NULL), CSD_NOT_FOUND, "unknown tasklet");
    /* plan tasklet without a plan */
    EXPECT_STATUS(dev_create_tasklet(d, "plan", NULL, NULL), CSD_INVALID_ARGUMENT, "needs a plan");
    /* unknown tasklet/output ids on execute */
    uint64_t out = dev_create_output(d, 0);
    EXPECT_STATUS(dev_execute(d, 12345, out, id, 0, 0, 1), CSD_NOT_FOUND, "no tasklet object");
    Smartssd__V1__Response *r = dev_create_tasklet(d, "grep", (const char *const[]){ "pattern=line", NULL }, NULL);
    CHECK(r->status == 0);
    uint64_t grep = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(dev_execute(d, grep, 999, id, 0, 0, 1), CSD_NOT_FOUND, "no output object");
    EXPECT_STATUS(dev_execute(d, grep, out, 31337, 0, 0, 1), CSD_NOT_FOUND, "no data object");
    /* extents past the end */
    EXPECT_STATUS(dev_execute(d, grep, out, id, 5, 1000, 0), CSD_OUT_OF_RANGE, "past the end");
    EXPECT_STATUS(dev_execute(d, grep, out, id, 1000, 0, 1), CSD_OUT_OF_RANGE, "past the end");
    /* reading an output that never ran */
    EXPECT_STATUS(dev_read(d, out, 0, 0), CSD_INVALID_ARGUMENT, "has not been executed");
    /* wrong entry_bytes: the object is not a whole number of records */
    r = dev_create_tasklet(d, "weblog-q1", (const char *const[]){ "entry_bytes=32", NULL }, NULL);
    CHECK(r->status == 0);
    uint64_t q1 = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(dev_execute(d, q1, out, id, 0, 0, 1), CSD_INVALID_ARGUMENT, "entry_bytes");
    r = dev_execute(d, q1, out, id, 0, 0, 1);
    CHECK_STR(r->param, "");   /* a framing misfit, not one parameter's value */
    smartssd__v1__response__free_unpacked(r, NULL);
    r = dev_create_tasklet(d, "weblog-q1", (const char *const[]){ "entry_bytes=banana", NULL }, NULL);
    CHECK(r->status == 0);        /* params without a plan are checked when a run starts */
    uint64_t bad = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    r = dev_execute(d, bad, out, id, 0, 0, 1);
    CHECK((int)r->status == CSD_INVALID_ARGUMENT);
    CHECK(strstr(r->message, "entry_bytes") != NULL);
    CHECK_STR(r->param, "entry_bytes");   /* named as a field: hosts need not parse the message */
    smartssd__v1__response__free_unpacked(r, NULL);
    r = dev_create_tasklet(d, "filter", (const char *const[]){ "entry_bytes=32", "op=between", "value=1", NULL }, NULL);
    CHECK(r->status == 0);
    bad = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    r = dev_execute(d, bad, out, id, 0, 0, 1);
    CHECK((int)r->status == CSD_INVALID_ARGUMENT);
    CHECK_STR(r->param, "op");
    smartssd__v1__response__free_unpacked(r, NULL);
    /* a good run still works on the same output object afterwards */
    r = dev_execute(d, grep, out, id, 0, 0, 1);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    EXPECT_STATUS(dev_execute(d, grep, out, id, 0, 0, 1), CSD_BUSY, "already holds a run");
    r = dev_read(d, out, 0, 0);
    CHECK(r->status == 0);
    CHECK(r->read_object->progress->done);
    CHECK(r->read_object->progress->rows == 1);
    smartssd__v1__response__free_unpacked(r, NULL);
    /* reading a tasklet object as data */
    EXPECT_STATUS(dev_read(d, grep, 0, 0), CSD_UNSUPPORTED, "is a tasklet");
    check_data_intact(d, id);
    dev_still_serving(d);
}

/* Plans: one that divides by zero fails the run with TASKLET_ERROR; one that reads past the record is
 * refused at create_object. */
static void plans(csd_device *d) {
    uint8_t recs[64];
    for (int i = 0; i < 8; i++) {
        memset(recs + 8 * i, 0, 8);
        recs[8 * i + 3] = (uint8_t)i;   /* big-endian u32 i, then 4 zero bytes */
    }
    uint64_t obj = dev_create_data(d, "ints.bin");
    dev_write(d, obj, 0, recs, sizeof recs);

    Smartssd__V1__Plan plan = SMARTSSD__V1__PLAN__INIT;
    Smartssd__V1__FixedRecords fr = SMARTSSD__V1__FIXED_RECORDS__INIT;
    fr.entry_bytes = 8;
    plan.format_case = SMARTSSD__V1__PLAN__FORMAT_FIXED;
    plan.fixed = &fr;
    Smartssd__V1__Column a = SMARTSSD__V1__COLUMN__INIT, b = SMARTSSD__V1__COLUMN__INIT, *cols[2] = { &a, &b };
    a.name = "a";
    a.type = SMARTSSD__V1__COLUMN_TYPE__INT64;
    a.offset = 0;
    a.width = 4;
    a.big_endian = 1;
    b.name = "b";
    b.type = SMARTSSD__V1__COLUMN_TYPE__INT64;
    b.offset = 4;
    b.width = 4;
    b.big_endian = 1;
    plan.n_columns = 2;
    plan.columns = cols;
    /* project a / b: b is always 0 */
    Smartssd__V1__Expr ea = SMARTSSD__V1__EXPR__INIT, eb = SMARTSSD__V1__EXPR__INIT, div = SMARTSSD__V1__EXPR__INIT;
    Smartssd__V1__Binary bin = SMARTSSD__V1__BINARY__INIT;
    ea.node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    ea.column = 0;
    eb.node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    eb.column = 1;
    bin.op = SMARTSSD__V1__BINARY_OP__DIV;
    bin.left = &ea;
    bin.right = &eb;
    div.node_case = SMARTSSD__V1__EXPR__NODE_BINARY;
    div.binary = &bin;
    Smartssd__V1__Expr *proj[1] = { &div };
    plan.n_project = 1;
    plan.project = proj;
    Smartssd__V1__Response *r = dev_create_tasklet(d, "plan", NULL, &plan);
    CHECK(r->status == 0);
    uint64_t t = r->create_object->object_id;
    smartssd__v1__response__free_unpacked(r, NULL);
    uint64_t out = dev_create_output(d, 0);
    r = dev_execute(d, t, out, obj, 0, 0, 1);
    CHECK(r->status == 0);
    smartssd__v1__response__free_unpacked(r, NULL);
    r = dev_read(d, out, 0, 0);
    CHECK(r->status == 0);
    CHECK(r->read_object->progress->finished);
    CHECK((int)r->read_object->progress->status == CSD_TASKLET_ERROR);
    CHECK_CONTAINS(r->read_object->progress->message, "division by zero");
    smartssd__v1__response__free_unpacked(r, NULL);

    /* a column reading past the 8-byte record */
    b.offset = 6;
    plan.n_project = 0;
    EXPECT_STATUS(dev_create_tasklet(d, "plan", NULL, &plan), CSD_INVALID_ARGUMENT, "past");
    b.offset = 4;
    /* a column index out of range in the filter */
    Smartssd__V1__Expr bad = SMARTSSD__V1__EXPR__INIT;
    bad.node_case = SMARTSSD__V1__EXPR__NODE_COLUMN;
    bad.column = 7;
    plan.filter = &bad;
    EXPECT_STATUS(dev_create_tasklet(d, "plan", NULL, &plan), CSD_INVALID_ARGUMENT, "");
    plan.filter = NULL;
    /* a plan given to a non-plan tasklet */
    EXPECT_STATUS(dev_create_tasklet(d, "grep", NULL, &plan), CSD_INVALID_ARGUMENT, "only the 'plan' tasklet");
    dev_still_serving(d);
}

int main(void) {
    const char *dir = csd_test_dir("badinput");
    for (int bg = 0; bg <= 1; bg++) {
        csd_device *d = dev_fresh(dir, "tiny", 4u << 20, bg);
        uint64_t id = dev_create_data(d, "input.txt");
        dev_write(d, id, 0, DATA, sizeof DATA - 1);
        packets(d, id);
        deep_nesting(d);
        objects(d, id);
        times(d, id);
        if (!bg) {
            tasklets(d, id);
            plans(d);
        }
        check_data_intact(d, id);
        CHECK(csd_device_close(d) == 0);
    }
    TEST_OK("test_device_badinput");
}
