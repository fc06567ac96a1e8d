# The smartssd device daemon (csdd) in a container: builds the C device and serves one image on a Unix
# socket in /run/smartssd (mount a volume there to reach it from the host or from other containers).
#   docker build -t smartssd-csdd .
#   docker run -v smartssd:/run/smartssd smartssd-csdd            # formats /data/dev.img on first start
# Built without the user-tasklet sandbox (its library comes from PyPI/crates.io): built-in tasklets only.
# Environment: CSD_CAPACITY (default 256M), CSD_PRESET (default smartssd-paper).
FROM debian:bookworm-slim AS build
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      cmake make gcc libc6-dev pkg-config protobuf-c-compiler libprotobuf-c-dev libjson-c-dev zlib1g-dev libutf8proc-dev \
    && rm -rf /var/lib/apt/lists/*
COPY proto /src/proto
COPY native /src/native
RUN rm -rf /src/native/target && cmake -S /src/native -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCSD_SANDBOX=OFF >/dev/null \
    && cmake --build /build -j2 --target csd csdd

FROM debian:bookworm-slim
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libprotobuf-c1 libjson-c5 zlib1g libutf8proc2 && rm -rf /var/lib/apt/lists/*
COPY --from=build /build/csd /build/csdd /usr/local/bin/
ENV CSD_CAPACITY=256M CSD_PRESET=smartssd-paper
VOLUME ["/data", "/run/smartssd"]
CMD ["sh", "-c", "[ -f /data/dev.img ] || csd format /data/dev.img --capacity \"$CSD_CAPACITY\" --preset \"$CSD_PRESET\"; exec csdd /data/dev.img --socket /run/smartssd/csdd.sock"]
