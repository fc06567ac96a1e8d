/* JNI glue for io.smartssd.device.NativeDevice: the embedded device behind the Java SmartSsd handle.
 *
 * Handles are csd_device pointers passed as jlong; the Java side (EmbeddedTransport) guarantees a handle
 * is live for the whole of a call and closed exactly once. Per command, the request bytes cross once
 * (copied out of the Java array: csd_device_command may block on the device lock, so no JNI critical
 * region) and bulk data stays in the caller's direct ByteBuffers. Errors become Java exceptions:
 * DeviceException for what the device says, IllegalArgumentException for what Java got wrong. */
#include <errno.h>
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smartssd/csd.h"
#include "smartssd/eval.h"
#include "smartssd/params.h"

#define ERRLEN 512
#define REQ_STACK 1024   /* most requests are a few dozen bytes: no malloc for them */

static jlong to_handle(csd_device *d) { return (jlong)(intptr_t)d; }
static csd_device *from_handle(jlong h) { return (csd_device *)(intptr_t)h; }

static void throw_class(JNIEnv *env, const char *cls, const char *msg)
{
    jclass c = (*env)->FindClass(env, cls);
    if (c) {
        (*env)->ThrowNew(env, c, msg);
        (*env)->DeleteLocalRef(env, c);
    }
}

/* Throws io.smartssd.device.DeviceException(int status, String message). */
static void throw_device(JNIEnv *env, int status, const char *msg)
{
    jclass c = (*env)->FindClass(env, "io/smartssd/device/DeviceException");
    if (!c)
        return; /* NoClassDefFoundError pending */
    jmethodID ctor = (*env)->GetMethodID(env, c, "<init>", "(ILjava/lang/String;)V");
    jstring jmsg = ctor ? (*env)->NewStringUTF(env, msg) : NULL;
    if (jmsg) {
        jobject ex = (*env)->NewObject(env, c, ctor, (jint)status, jmsg);
        if (ex)
            (*env)->Throw(env, (jthrowable)ex);
    }
    (*env)->DeleteLocalRef(env, c);
}

static void throw_errno(JNIEnv *env, int rc, const char *what, const char *err)
{
    char msg[ERRLEN + 128];
    int e = rc < 0 ? -rc : rc;
    snprintf(msg, sizeof msg, "%s: %s", what, err && err[0] ? err : strerror(e));
    throw_device(env, csd_status_from_errno(-e), msg);
}

/* A NUL-terminated copy of a Java byte[] path, or NULL with an exception pending. */
static char *path_dup(JNIEnv *env, jbyteArray path)
{
    if (!path) {
        throw_class(env, "java/lang/NullPointerException", "image path");
        return NULL;
    }
    jsize n = (*env)->GetArrayLength(env, path);
    char *s = malloc((size_t)n + 1);
    if (!s) {
        throw_class(env, "java/lang/OutOfMemoryError", "image path");
        return NULL;
    }
    (*env)->GetByteArrayRegion(env, path, 0, n, (jbyte *)s);
    s[n] = '\0';
    if (memchr(s, '\0', (size_t)n)) {
        free(s);
        throw_class(env, "java/lang/IllegalArgumentException", "image path contains a NUL byte");
        return NULL;
    }
    return s;
}

/* Applies keys[i] = values[i] to p. 0, or -1 with an exception pending. */
static int apply_params(JNIEnv *env, csd_params *p, jobjectArray keys, jobjectArray values)
{
    if (!keys || !values)
        return 0;
    jsize n = (*env)->GetArrayLength(env, keys);
    if ((*env)->GetArrayLength(env, values) != n) {
        throw_class(env, "java/lang/IllegalArgumentException", "parameter names and values differ in count");
        return -1;
    }
    for (jsize i = 0; i < n; i++) {
        jstring k = (jstring)(*env)->GetObjectArrayElement(env, keys, i);
        jstring v = (jstring)(*env)->GetObjectArrayElement(env, values, i);
        if (!k || !v) {
            throw_class(env, "java/lang/NullPointerException", "device parameter name or value");
            return -1;
        }
        const char *ks = (*env)->GetStringUTFChars(env, k, NULL);
        const char *vs = ks ? (*env)->GetStringUTFChars(env, v, NULL) : NULL;
        int rc = 0;
        char err[ERRLEN] = "";
        if (ks && vs)
            rc = csd_params_set(p, ks, vs, err, sizeof err);
        else
            rc = -ENOMEM;
        if (rc < 0 && ks && vs) {
            char msg[ERRLEN + 128];
            snprintf(msg, sizeof msg, "device parameter %s = %s: %s", ks, vs ? vs : "",
                     err[0] ? err : (rc == -ENOENT ? "unknown parameter" : strerror(-rc)));
            throw_device(env, CSD_INVALID_ARGUMENT, msg);
        }
        if (vs)
            (*env)->ReleaseStringUTFChars(env, v, vs);
        if (ks)
            (*env)->ReleaseStringUTFChars(env, k, ks);
        (*env)->DeleteLocalRef(env, k);
        (*env)->DeleteLocalRef(env, v);
        if (rc < 0) {
            if (!(*env)->ExceptionCheck(env))
                throw_class(env, "java/lang/OutOfMemoryError", "device parameter");
            return -1;
        }
    }
    return 0;
}

/* The open's edit hook: overrides change only the named fields of the params stored in the image
 * (open validates the result, so a geometry change is refused clearly). A bad one has thrown. */
typedef struct {
    JNIEnv *env;
    jobjectArray keys, values;
} open_edit;

static int edit_params(void *arg, csd_params *p, char *err, size_t errlen)
{
    open_edit *x = arg;
    if (apply_params(x->env, p, x->keys, x->values) < 0) {
        snprintf(err, errlen, "device parameter overrides");
        return -EINVAL;
    }
    return 0;
}

JNIEXPORT jlong JNICALL Java_io_smartssd_device_NativeDevice_nativeOpen(JNIEnv *env, jclass cls, jbyteArray path,
                                                                        jboolean background, jobjectArray keys,
                                                                        jobjectArray values)
{
    (void)cls;
    char *image = path_dup(env, path);
    if (!image)
        return 0;
    char err[ERRLEN] = "";
    open_edit x = {env, keys, values};
    csd_open_opts opts = {.override = NULL, .background = background ? 1 : 0};
    if (keys && (*env)->GetArrayLength(env, keys) > 0) {
        /* applied inside the one open: a second open would rebuild the map from every OOB record again */
        opts.edit = edit_params;
        opts.edit_arg = &x;
    }
    csd_device *dev = NULL;
    int rc = csd_device_open(&dev, image, &opts, err, sizeof err);
    if (rc < 0) {
        if (!(*env)->ExceptionCheck(env))   /* apply_params has thrown for a bad override */
            throw_errno(env, rc, image, err);
        free(image);
        return 0;
    }
    free(image);
    return to_handle(dev);
}

JNIEXPORT void JNICALL Java_io_smartssd_device_NativeDevice_nativeClose(JNIEnv *env, jclass cls, jlong handle)
{
    (void)cls;
    csd_device *dev = from_handle(handle);
    if (!dev)
        return;
    int rc = csd_device_close(dev);
    if (rc < 0)
        throw_errno(env, rc, "close", NULL);
}

/* The address of [off, off+len) of a direct buffer, or NULL with an exception pending. */
static void *buffer_range(JNIEnv *env, jobject buf, jint off, jint len, const char *what)
{
    void *base = (*env)->GetDirectBufferAddress(env, buf);
    jlong cap = (*env)->GetDirectBufferCapacity(env, buf);
    char msg[160];
    if (!base || cap < 0) {
        snprintf(msg, sizeof msg, "%s buffer is not a direct ByteBuffer", what);
        throw_class(env, "java/lang/IllegalArgumentException", msg);
        return NULL;
    }
    if (off < 0 || len < 0 || (jlong)off + (jlong)len > cap) {
        snprintf(msg, sizeof msg, "%s range [%d, %lld) is outside the %lld-byte buffer", what, (int)off,
                 (long long)off + (long long)len, (long long)cap);
        throw_class(env, "java/lang/IndexOutOfBoundsException", msg);
        return NULL;
    }
    return (char *)base + off;
}

JNIEXPORT jbyteArray JNICALL Java_io_smartssd_device_NativeDevice_nativeCommand(
    JNIEnv *env, jclass cls, jlong handle, jbyteArray request, jobject in, jint in_off, jint in_len, jobject out,
    jint out_off, jint out_len)
{
    (void)cls;
    csd_device *dev = from_handle(handle);
    if (!dev) {
        throw_class(env, "java/lang/IllegalStateException", "device is closed");
        return NULL;
    }
    if (!request) {
        throw_class(env, "java/lang/NullPointerException", "request");
        return NULL;
    }
    csd_payload payload = {0};
    if (in) {
        payload.in = buffer_range(env, in, in_off, in_len, "input");
        if (!payload.in)
            return NULL;
        payload.in_len = (size_t)in_len;
    }
    if (out) {
        payload.out = buffer_range(env, out, out_off, out_len, "output");
        if (!payload.out)
            return NULL;
        payload.out_cap = (size_t)out_len;
    }

    jsize req_len = (*env)->GetArrayLength(env, request);
    uint8_t stack_req[REQ_STACK];
    uint8_t *req = stack_req;
    if ((size_t)req_len > sizeof stack_req) {
        req = malloc((size_t)req_len);
        if (!req) {
            throw_device(env, CSD_RESOURCE_EXHAUSTED, "no memory for the request packet");
            return NULL;
        }
    }
    (*env)->GetByteArrayRegion(env, request, 0, req_len, (jbyte *)req);

    uint8_t *resp = NULL;
    size_t resp_len = 0;
    int rc = csd_device_command(dev, req, (size_t)req_len, (in || out) ? &payload : NULL, &resp, &resp_len);
    if (req != stack_req)
        free(req);
    if (rc < 0 || !resp) {
        csd_free(resp);
        throw_errno(env, rc < 0 ? rc : -EIO, "command", "the device could not produce a response");
        return NULL;
    }
    if (resp_len > (size_t)INT32_MAX) {
        csd_free(resp);
        throw_device(env, CSD_INTERNAL, "response larger than a Java array");
        return NULL;
    }
    jbyteArray result = (*env)->NewByteArray(env, (jsize)resp_len);
    if (result)
        (*env)->SetByteArrayRegion(env, result, 0, (jsize)resp_len, (const jbyte *)resp);
    csd_free(resp);
    return result; /* NULL with OutOfMemoryError pending if the array could not be made */
}

JNIEXPORT void JNICALL Java_io_smartssd_device_NativeDevice_nativeFormat(JNIEnv *env, jclass cls, jbyteArray path,
                                                                         jlong capacity, jstring preset,
                                                                         jobjectArray keys, jobjectArray values)
{
    (void)cls;
    if (capacity <= 0) {
        throw_class(env, "java/lang/IllegalArgumentException", "capacity must be > 0");
        return;
    }
    char *image = path_dup(env, path);
    if (!image)
        return;
    csd_params p;
    const csd_params *pp = NULL;
    int has_keys = keys && (*env)->GetArrayLength(env, keys) > 0;
    if (preset || has_keys) {
        const char *name = preset ? (*env)->GetStringUTFChars(env, preset, NULL) : NULL;
        if (preset && !name) {
            free(image);
            return;
        }
        int rc = csd_params_preset(&p, name ? name : "smartssd-paper");
        if (rc < 0) {
            char msg[ERRLEN];
            snprintf(msg, sizeof msg, "unknown preset '%s'", name ? name : "smartssd-paper");
            throw_device(env, CSD_INVALID_ARGUMENT, msg);
        }
        if (name)
            (*env)->ReleaseStringUTFChars(env, preset, name);
        if (rc < 0 || apply_params(env, &p, keys, values) < 0) {
            free(image);
            return;
        }
        pp = &p;
    }
    char err[ERRLEN] = "";
    int rc = csd_format(image, (uint64_t)capacity, pp, err, sizeof err);
    if (rc < 0)
        throw_errno(env, rc, image, err);
    free(image);
}

JNIEXPORT jstring JNICALL Java_io_smartssd_device_NativeDevice_nativeVersion(JNIEnv *env, jclass cls)
{
    (void)cls;
    return (*env)->NewStringUTF(env, csd_version());
}

/* ---- io.smartssd.device.NativeEval: a built-in tasklet on the host (smartssd/eval.h) ---- */


static csd_eval *eval_of(JNIEnv *env, jlong h)
{
    csd_eval *e = (csd_eval *)(intptr_t)h;
    if (!e)
        throw_class(env, "java/lang/IllegalStateException", "host evaluation is closed");
    return e;
}

/* DeviceException(int status, String message, String param) for a failed evaluation. */
static void throw_eval(JNIEnv *env, int rc, const char *msg, const char *param)
{
    jclass c = (*env)->FindClass(env, "io/smartssd/device/DeviceException");
    if (!c)
        return;
    jmethodID ctor = (*env)->GetMethodID(env, c, "<init>", "(ILjava/lang/String;Ljava/lang/String;)V");
    jstring jmsg = ctor ? (*env)->NewStringUTF(env, msg) : NULL;
    jstring jparam = jmsg ? (*env)->NewStringUTF(env, param ? param : "") : NULL;
    if (jparam) {
        jobject ex = (*env)->NewObject(env, c, ctor, (jint)csd_status_from_errno(rc < 0 ? rc : -rc), jmsg, jparam);
        if (ex)
            (*env)->Throw(env, (jthrowable)ex);
    }
    (*env)->DeleteLocalRef(env, c);
}

/* A Java byte[]'s bytes (malloc'd; *len its length), or NULL for a null array. */
static uint8_t *array_dup(JNIEnv *env, jbyteArray a, size_t *len)
{
    *len = 0;
    if (!a)
        return NULL;
    jsize n = (*env)->GetArrayLength(env, a);
    uint8_t *p = malloc(n ? (size_t)n : 1);
    if (p) {
        (*env)->GetByteArrayRegion(env, a, 0, n, (jbyte *)p);
        *len = (size_t)n;
    }
    return p;
}

JNIEXPORT jlong JNICALL Java_io_smartssd_device_NativeEval_nativeCreate(JNIEnv *env, jclass cls, jbyteArray tasklet,
                                                                       jbyteArray output, jint page_bytes)
{
    (void)cls;
    size_t tl, ol;
    uint8_t *t = array_dup(env, tasklet, &tl), *o = array_dup(env, output, &ol);
    if ((tasklet && !t) || (output && !o)) {
        free(t);
        free(o);
        throw_class(env, "java/lang/OutOfMemoryError", "host evaluation request");
        return 0;
    }
    char err[ERRLEN] = "", param[CSD_EVAL_PARAM_MAX] = "";
    csd_eval *e = NULL;
    int rc = csd_eval_create(&e, t, tl, o, ol, (uint32_t)page_bytes, param, err, sizeof err);
    free(t);
    free(o);
    if (rc < 0) {
        throw_eval(env, rc, err, param);
        return 0;
    }
    return (jlong)(intptr_t)e;
}

JNIEXPORT jlongArray JNICALL Java_io_smartssd_device_NativeEval_nativeBegin(JNIEnv *env, jclass cls, jlong h,
                                                                           jlong size, jlong offset, jlong length)
{
    (void)cls;
    csd_eval *e = eval_of(env, h);
    if (!e)
        return NULL;
    if (size < 0 || offset < 0 || length < 0) {
        throw_class(env, "java/lang/IllegalArgumentException", "negative object size or extent");
        return NULL;
    }
    char err[ERRLEN] = "";
    uint64_t first = 0, last = 0;
    int rc = csd_eval_begin(e, (uint64_t)size, (uint64_t)offset, (uint64_t)length, &first, &last, err, sizeof err);
    if (rc < 0) {
        throw_eval(env, rc, err, NULL);
        return NULL;
    }
    jlongArray r = (*env)->NewLongArray(env, 2);
    if (r) {
        jlong v[2] = {(jlong)first, (jlong)last};
        (*env)->SetLongArrayRegion(env, r, 0, 2, v);
    }
    return r;
}

JNIEXPORT jint JNICALL Java_io_smartssd_device_NativeEval_nativeFeed(JNIEnv *env, jclass cls, jlong h, jlong page,
                                                                    jobject buf, jint off, jint len)
{
    (void)cls;
    csd_eval *e = eval_of(env, h);
    if (!e)
        return 0;
    const void *p = buffer_range(env, buf, off, len, "page");
    if (!p)
        return 0;
    int need_more = 0;
    int rc = csd_eval_feed(e, (uint64_t)page, p, (size_t)len, &need_more);
    if (rc < 0) {
        throw_eval(env, rc, csd_eval_error(e)[0] ? csd_eval_error(e) : strerror(-rc), NULL);
        return 0;
    }
    return need_more;
}

JNIEXPORT void JNICALL Java_io_smartssd_device_NativeEval_nativeFinish(JNIEnv *env, jclass cls, jlong h)
{
    (void)cls;
    csd_eval *e = eval_of(env, h);
    if (!e)
        return;
    int rc = csd_eval_finish(e);
    if (rc < 0)
        throw_eval(env, rc, csd_eval_error(e)[0] ? csd_eval_error(e) : strerror(-rc), NULL);
}

JNIEXPORT jbyteArray JNICALL Java_io_smartssd_device_NativeEval_nativeTake(JNIEnv *env, jclass cls, jlong h)
{
    (void)cls;
    csd_eval *e = eval_of(env, h);
    if (!e)
        return NULL;
    const uint8_t *rows = NULL;
    size_t n = csd_eval_take(e, &rows);
    if (n > (size_t)INT32_MAX) {
        throw_device(env, CSD_RESOURCE_EXHAUSTED, "host evaluation rows larger than a Java array");
        return NULL;
    }
    jbyteArray r = (*env)->NewByteArray(env, (jsize)n);
    if (r && n)
        (*env)->SetByteArrayRegion(env, r, 0, (jsize)n, (const jbyte *)rows);
    return r;
}

JNIEXPORT jlongArray JNICALL Java_io_smartssd_device_NativeEval_nativeCost(JNIEnv *env, jclass cls, jlong h)
{
    (void)cls;
    csd_eval *e = eval_of(env, h);
    if (!e)
        return NULL;
    uint64_t cyc = 0, dram = 0, pages = 0;
    csd_eval_cost(e, &cyc, &dram, &pages);
    jlongArray r = (*env)->NewLongArray(env, 4);
    if (r) {
        jlong v[4] = {(jlong)cyc, (jlong)dram, (jlong)pages, (jlong)csd_eval_truncated(e)};
        (*env)->SetLongArrayRegion(env, r, 0, 4, v);
    }
    return r;
}

JNIEXPORT void JNICALL Java_io_smartssd_device_NativeEval_nativeDestroy(JNIEnv *env, jclass cls, jlong h)
{
    (void)env;
    (void)cls;
    csd_eval_destroy((csd_eval *)(intptr_t)h);
}
