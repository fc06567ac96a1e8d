package io.smartssd.examples.weblog;

/**
 * One run of one version of one query: its answer and what it cost.
 *
 * @param wallNanos    wall-clock time of the job on this machine (submit to done)
 * @param deviceNanos  how far the device's virtual clock moved during the job (host versions: serving
 *                     the reads; device: the tasklets), or -1 when the input is not on a device
 * @param linkBytes    bytes that crossed the host link (device to host): the whole input for the host
 *                     versions, result rows for the device version
 * @param flashBytes   bytes the device read from flash (-1 when the input is not on a device)
 * @param offload      where the splits ran under smartssd.offload host or auto, else null
 */
public record RunResult(Version version, WeblogQuery query, int entryBytes, long inputBytes, WeblogAnswer answer,
                        long wallNanos, long deviceNanos, long linkBytes, long flashBytes, OffloadReport offload) {

    /** A run without an offload plan (smartssd.offload = device, or not a DeviceJob). */
    public RunResult(Version version, WeblogQuery query, int entryBytes, long inputBytes, WeblogAnswer answer,
                     long wallNanos, long deviceNanos, long linkBytes, long flashBytes) {
        this(version, query, entryBytes, inputBytes, answer, wallNanos, deviceNanos, linkBytes, flashBytes, null);
    }

    public String toJson() {
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"version\":\"").append(version.label()).append("\",\"query\":\"").append(query.shortName())
                .append("\",\"entry_bytes\":").append(entryBytes).append(",\"input_bytes\":").append(inputBytes)
                .append(",\"wall_ns\":").append(wallNanos).append(",\"device_ns\":").append(deviceNanos)
                .append(",\"link_bytes\":").append(linkBytes).append(",\"flash_bytes\":").append(flashBytes)
                .append(offload == null ? "" : ",\"offload\":" + offload.toJson())
                .append(",\"answer\":[");
        for (int i = 0; i < answer.lines().size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('[');
            String[] f = answer.lines().get(i).split("\t");
            for (int j = 0; j < f.length; j++) {
                if (j > 0) {
                    sb.append(',');
                }
                boolean number = j > 0 && f[j].chars().allMatch(Character::isDigit);
                sb.append(number ? f[j] : "\"" + f[j] + "\"");
            }
            sb.append(']');
        }
        return sb.append("]}").toString();
    }
}
