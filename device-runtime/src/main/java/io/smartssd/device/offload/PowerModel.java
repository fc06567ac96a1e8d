package io.smartssd.device.offload;

/**
 * Power levels for the energy objective, W: the host idle, what a busy host adds, what a device running
 * a tasklet adds. The defaults are the Smart SSD paper's measured levels (V-C-3, Fig. 10: 44 W idle, about
 * +35 W for the host versions, +0.5-0.8 W for the device, taken as 0.65 W), as bench/energy.py uses them.
 */
public record PowerModel(double hostIdleWatts, double hostActiveWatts, double deviceWatts) {
    public static final PowerModel PAPER = new PowerModel(44, 35, 0.65);

    public PowerModel {
        if (!(hostIdleWatts >= 0 && hostActiveWatts >= 0 && deviceWatts >= 0)) {
            throw new IllegalArgumentException("power levels must be >= 0 W: idle " + hostIdleWatts + ", host "
                    + hostActiveWatts + ", device " + deviceWatts);
        }
    }
}
