/* libFuzzer target: arbitrary bytes as a command packet to a live device. The device must answer
 * every packet with a Response that decodes, and never crash. The first byte picks a payload mode so
 * the payload paths are fuzzed too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smartssd/csd.h"
#include "smartssd/v1/device.pb-c.h"

static csd_device *dev;   /* one device for the whole fuzzing process */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char path[256], err[512];
    snprintf(path, sizeof path, "/tmp/csd-fuzz-packet.%d.img", (int)getpid());
    csd_params p;
    csd_params_preset(&p, "tiny");
    if (csd_format(path, 8u << 20, &p, err, sizeof err)) {
        fprintf(stderr, "format: %s\n", err);
        abort();
    }
    csd_open_opts o = { .background = 0 };
    if (csd_device_open(&dev, path, &o, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        abort();
    }
    unlink(path);   /* the open file stays usable; nothing is left behind */
    /* Some objects for packets to hit: data 1 and 2, tasklet and output ids from the volatile base. */
    static const uint8_t text[] = "alpha\nbeta\ngamma\n";
    const char *names[] = { "a", "b" };
    for (int i = 0; i < 2; i++) {
        Smartssd__V1__Request req = SMARTSSD__V1__REQUEST__INIT;
        Smartssd__V1__CreateObject co = SMARTSSD__V1__CREATE_OBJECT__INIT;
        co.kind = SMARTSSD__V1__OBJECT_KIND__DATA;
        co.name = (char *)names[i];
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_CREATE_OBJECT;
        req.create_object = &co;
        uint8_t buf[256], *out;
        size_t n = smartssd__v1__request__pack(&req, buf), out_len;
        csd_device_command(dev, buf, n, NULL, &out, &out_len);
        csd_free(out);
        Smartssd__V1__WriteObject w = SMARTSSD__V1__WRITE_OBJECT__INIT;
        w.object_id = (uint64_t)i + 1;
        w.data.data = (uint8_t *)text;
        w.data.len = sizeof text - 1;
        req.command_case = SMARTSSD__V1__REQUEST__COMMAND_WRITE_OBJECT;
        req.write_object = &w;
        n = smartssd__v1__request__pack(&req, buf);
        csd_device_command(dev, buf, n, NULL, &out, &out_len);
        csd_free(out);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    uint8_t outbuf[8192];
    csd_payload pl = { .in = data, .in_len = size > 64 ? 64 : size, .out = outbuf, .out_cap = sizeof outbuf };
    uint8_t *resp;
    size_t resp_len;
    if (csd_device_command(dev, data, size, (mode & 1) ? &pl : NULL, &resp, &resp_len)) abort();
    Smartssd__V1__Response *r = smartssd__v1__response__unpack(NULL, resp_len, resp);
    if (!r) abort();
    smartssd__v1__response__free_unpacked(r, NULL);
    csd_free(resp);
    return 0;
}
