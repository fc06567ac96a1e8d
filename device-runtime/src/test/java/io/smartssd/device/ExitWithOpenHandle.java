package io.smartssd.device;

import java.nio.file.Path;

/** Run in a child JVM: writes an object, then leaves the JVM with the device still open. */
public final class ExitWithOpenHandle {
    private ExitWithOpenHandle() {
    }

    public static void main(String[] args) {
        Path image = Path.of(args[0]);
        boolean halt = args[1].equals("halt");
        SmartSsd ssd = SmartSsd.openEmbedded(image);
        byte[] data = new byte[100_000];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        long id = ssd.createData("left-open").id();
        ssd.write(id, 0, java.nio.ByteBuffer.allocateDirect(data.length).put(data).flip());
        System.out.println("written");
        System.out.flush();
        if (halt) {
            Runtime.getRuntime().halt(0); // no shutdown hooks: as if killed
        }
        System.exit(0); // the close-on-exit hook closes the device
    }
}
