/**
 * The Java host library of smartssd: {@link io.smartssd.device.SmartSsd} is the one way Java reaches a
 * device. Commands are protobuf messages ({@code io.smartssd.proto}, generated from
 * proto/smartssd/v1/device.proto); bulk data travels in direct ByteBuffers; results come as
 * {@link io.smartssd.proto.Row}s through {@link io.smartssd.device.ResultStream}, which hides the
 * adaptive polling. See docs/JAVA-API.md.
 */
package io.smartssd.device;
