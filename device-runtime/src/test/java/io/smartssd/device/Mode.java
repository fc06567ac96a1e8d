package io.smartssd.device;

/** The two ways to reach a device: in this JVM over JNI, or a csdd daemon over its Unix socket. */
enum Mode {
    EMBEDDED, REMOTE
}
