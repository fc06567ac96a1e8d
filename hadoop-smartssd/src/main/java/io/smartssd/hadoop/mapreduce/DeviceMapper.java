package io.smartssd.hadoop.mapreduce;

import com.google.protobuf.InvalidProtocolBufferException;
import io.smartssd.device.TaskletRun;
import io.smartssd.proto.Plan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.conf.Configuration;

/**
 * The map function of a {@link DeviceJob}: one tasklet that runs inside the device over each split
 * (Smart SSD paper III-C: "DeviceMapper represents one tasklet"). It names a built-in tasklet
 * ({@code weblog-q1}, {@code grep}, {@code filter}, ...) or carries a declarative {@link Plan}, with static
 * params (create_object(TASKLET)) and runtime params, keywords and a row limit (create_object(OUTPUT)).
 * Immutable; it travels to the tasks in the job configuration under {@code smartssd.mapper.*}.
 *
 * <pre>{@code
 * DeviceMapper.tasklet("grep").keyword("/images/").runtimeParam("mode", "count")
 * }</pre>
 */
public final class DeviceMapper {
    /** The tasklet name. */
    public static final String TASKLET = "smartssd.mapper.tasklet";
    /** Prefix of static params: {@value}{@code <name>}. */
    public static final String STATIC_PARAM_PREFIX = "smartssd.mapper.param.";
    /** Prefix of runtime params: {@value}{@code <name>}. */
    public static final String RUNTIME_PARAM_PREFIX = "smartssd.mapper.runtime.";
    /** Number of runtime keywords; each is {@code smartssd.mapper.keyword.<i>} (a keyword may hold commas). */
    public static final String KEYWORD_COUNT = "smartssd.mapper.keywords";
    public static final String KEYWORD_PREFIX = "smartssd.mapper.keyword.";
    /** Stop each map after this many device rows (0 = unlimited). */
    public static final String MAX_OUTPUTS = "smartssd.mapper.max-outputs";
    /** The plan of the {@code plan} tasklet: a serialized {@code smartssd.v1.Plan}, base64. */
    public static final String PLAN = "smartssd.mapper.plan";
    /**
     * A user tasklet shipped with the job: its WebAssembly program (tasklet SDK), base64. It is installed
     * on every device the job reads at submission, under the mapper's tasklet name, like a job resource.
     */
    public static final String PROGRAM = "smartssd.mapper.program";

    private final String tasklet;
    private final Map<String, String> staticParams;
    private final Map<String, String> runtimeParams;
    private final List<String> keywords;
    private final long maxOutputs;
    private final Plan plan;
    private byte[] program;

    private DeviceMapper(String tasklet, Map<String, String> staticParams, Map<String, String> runtimeParams,
                         List<String> keywords, long maxOutputs, Plan plan, byte[] program) {
        this(tasklet, staticParams, runtimeParams, keywords, maxOutputs, plan);
        this.program = program;
    }

    private DeviceMapper(String tasklet, Map<String, String> staticParams, Map<String, String> runtimeParams,
                         List<String> keywords, long maxOutputs, Plan plan) {
        this.tasklet = tasklet;
        this.staticParams = Collections.unmodifiableMap(staticParams);
        this.runtimeParams = Collections.unmodifiableMap(runtimeParams);
        this.keywords = List.copyOf(keywords);
        this.maxOutputs = maxOutputs;
        this.plan = plan;
    }

    /** A built-in tasklet by name. */
    public static DeviceMapper tasklet(String name) {
        if (Objects.requireNonNull(name, "tasklet name").isBlank()) {
            throw new IllegalArgumentException("a DeviceMapper needs a tasklet name");
        }
        return new DeviceMapper(name, new LinkedHashMap<>(), new LinkedHashMap<>(), List.of(), 0, null);
    }

    /** The {@code plan} tasklet running a declarative plan. */
    public static DeviceMapper plan(Plan plan) {
        return new DeviceMapper("plan", new LinkedHashMap<>(), new LinkedHashMap<>(), List.of(), 0,
                Objects.requireNonNull(plan, "plan"));
    }

    /**
     * Your own tasklet: a WebAssembly program built with the tasklet SDK ({@code bin/smartssd tasklet
     * build}), shipped with the job and installed on every device at submission under the file's name
     * without {@code .wasm} (e.g. {@code q1-user.wasm} is tasklet {@code q1-user}); it then runs like a
     * built-in, sandboxed. A program of that name with other bytes on a device is replaced.
     */
    public static DeviceMapper program(java.nio.file.Path wasm) throws IOException {
        String file = Objects.requireNonNull(wasm, "program path").getFileName().toString();
        String name = file.endsWith(".wasm") ? file.substring(0, file.length() - 5) : file;
        return program(name, java.nio.file.Files.readAllBytes(wasm));
    }

    /** {@link #program(java.nio.file.Path)} with the tasklet's name and program bytes given. */
    public static DeviceMapper program(String name, byte[] wasm) {
        DeviceMapper m = tasklet(name);
        if (Objects.requireNonNull(wasm, "program").length == 0) {
            throw new IllegalArgumentException("the program of tasklet '" + name + "' is empty");
        }
        return new DeviceMapper(m.tasklet, new LinkedHashMap<>(), new LinkedHashMap<>(), List.of(), 0, null, wasm.clone());
    }

    /** The shipped program, or null when the tasklet is one the devices have. */
    public byte[] program() {
        return program == null ? null : program.clone();
    }

    /** With a static param (create_object(TASKLET)). */
    public DeviceMapper param(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(staticParams);
        m.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return new DeviceMapper(tasklet, m, runtimeParams, keywords, maxOutputs, plan, program);
    }

    /** With a runtime param (create_object(OUTPUT)); it overrides a static param of the same name. */
    public DeviceMapper runtimeParam(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(runtimeParams);
        m.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return new DeviceMapper(tasklet, staticParams, m, keywords, maxOutputs, plan, program);
    }

    /** With one more runtime keyword (e.g. grep's pattern). */
    public DeviceMapper keyword(String keyword) {
        List<String> k = new ArrayList<>(keywords);
        k.add(Objects.requireNonNull(keyword, "keyword"));
        return new DeviceMapper(tasklet, staticParams, runtimeParams, k, maxOutputs, plan, program);
    }

    /** Each map stops after this many rows (0 = unlimited). */
    public DeviceMapper maxOutputs(long n) {
        if (n < 0) {
            throw new IllegalArgumentException("maxOutputs must be >= 0 (0 = unlimited), got " + n);
        }
        return new DeviceMapper(tasklet, staticParams, runtimeParams, keywords, n, plan, program);
    }

    public String taskletName() {
        return tasklet;
    }

    public Map<String, String> staticParams() {
        return staticParams;
    }

    public Map<String, String> runtimeParams() {
        return runtimeParams;
    }

    public List<String> keywords() {
        return keywords;
    }

    public long maxOutputs() {
        return maxOutputs;
    }

    /** The plan, or null for a built-in tasklet. */
    /** The device-side description of this mapper's tasklet run. */
    public TaskletRun.Spec spec() {
        return new TaskletRun.Spec(taskletName(), staticParams(), plan(), runtimeParams(), keywords(), maxOutputs());
    }

    public Plan plan() {
        return plan;
    }

    /** Writes this mapper into conf (replacing any other). */
    public void writeTo(Configuration conf) {
        for (String k : List.copyOf(conf.getPropsWithPrefix("smartssd.mapper.").keySet())) {
            conf.unset("smartssd.mapper." + k);
        }
        conf.set(TASKLET, tasklet);
        staticParams.forEach((k, v) -> conf.set(STATIC_PARAM_PREFIX + k, v));
        runtimeParams.forEach((k, v) -> conf.set(RUNTIME_PARAM_PREFIX + k, v));
        conf.setInt(KEYWORD_COUNT, keywords.size());
        for (int i = 0; i < keywords.size(); i++) {
            conf.set(KEYWORD_PREFIX + i, keywords.get(i));
        }
        conf.setLong(MAX_OUTPUTS, maxOutputs);
        if (plan != null) {
            conf.set(PLAN, Base64.getEncoder().encodeToString(plan.toByteArray()));
        }
        if (program != null) {
            conf.set(PROGRAM, Base64.getEncoder().encodeToString(program));
        }
    }

    /** The mapper conf describes; an IOException names the key that is missing or wrong. */
    public static DeviceMapper readFrom(Configuration conf) throws IOException {
        String name = conf.getTrimmed(TASKLET, "");
        if (name.isEmpty()) {
            throw new IOException(TASKLET + " is not set: a DeviceJob needs a DeviceMapper (DeviceJob.setDeviceMapper)");
        }
        Plan plan = null;
        String planText = conf.getTrimmed(PLAN, "");
        if (!planText.isEmpty()) {
            try {
                plan = Plan.parseFrom(Base64.getDecoder().decode(planText));
            } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
                throw new IOException(PLAN + " does not hold a base64 smartssd.v1.Plan: " + e.getMessage(), e);
            }
        }
        int n = conf.getInt(KEYWORD_COUNT, 0);
        List<String> kw = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String k = conf.getRaw(KEYWORD_PREFIX + i);
            if (k == null) {
                throw new IOException(KEYWORD_PREFIX + i + " is missing (" + KEYWORD_COUNT + " = " + n + ")");
            }
            kw.add(k);
        }
        long max = conf.getLong(MAX_OUTPUTS, 0);
        if (max < 0) {
            throw new IOException(MAX_OUTPUTS + " = " + max + ": must be >= 0 (0 = unlimited)");
        }
        byte[] program = null;
        String programText = conf.getTrimmed(PROGRAM, "");
        if (!programText.isEmpty()) {
            try {
                program = Base64.getDecoder().decode(programText);
            } catch (IllegalArgumentException e) {
                throw new IOException(PROGRAM + " does not hold a base64 tasklet program: " + e.getMessage(), e);
            }
        }
        return new DeviceMapper(name, new LinkedHashMap<>(conf.getPropsWithPrefix(STATIC_PARAM_PREFIX)),
                new LinkedHashMap<>(conf.getPropsWithPrefix(RUNTIME_PARAM_PREFIX)), kw, max, plan, program);
    }

    /** The configuration key of a static param, for messages. */
    public static String paramKey(String name) {
        return STATIC_PARAM_PREFIX + name;
    }

    @Override
    public String toString() {
        return "DeviceMapper[" + tasklet + (plan != null ? " (plan)" : "")
                + (program != null ? " (program, " + program.length + " bytes)" : "") + " params " + staticParams + " runtime "
                + runtimeParams + " keywords " + keywords + (maxOutputs > 0 ? " max " + maxOutputs : "") + "]";
    }
}
