package io.smartssd.device;

/** The three kinds of device object (paper Fig. 5). */
public enum ObjectKind {
    /** Persistent bytes in the image. */
    DATA,
    /** A tasklet template: built-in name plus static params (volatile). */
    TASKLET,
    /** Results of one execution plus its runtime params (volatile, device DRAM). */
    OUTPUT,
    /** A kind this library does not know. */
    UNKNOWN;

    static ObjectKind of(io.smartssd.proto.ObjectKind k) {
        switch (k) {
            case DATA: return DATA;
            case TASKLET: return TASKLET;
            case OUTPUT: return OUTPUT;
            default: return UNKNOWN;
        }
    }
}
