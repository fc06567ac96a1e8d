package io.smartssd.device;

/** Reply to execute: the tasklet started on {@code pagesTotal} pages of input. */
public record Executed(long pagesTotal, long deviceNanos) implements DeviceTimed {
}
