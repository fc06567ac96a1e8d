"""Builds the wheel with the Spark runtime jar inside it (smartssd/jars/). The jar comes from the Maven
build (spark-runtime/target, `bin/smartssd build`), or from SMARTSSD_RUNTIME_JAR; without it the build stops
and says how to make it."""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def runtime_jar():
    given = os.environ.get("SMARTSSD_RUNTIME_JAR")
    if given:
        if not os.path.isfile(given):
            raise SystemExit("SMARTSSD_RUNTIME_JAR=%s: no such file" % given)
        return given
    built = sorted(glob.glob(os.path.join(HERE, "..", "spark-runtime", "target", "spark-smartssd-runtime-*.jar")))
    built = [j for j in built if not j.endswith(("-sources.jar", "-javadoc.jar"))]
    if not built:
        raise SystemExit("smartssd: the Spark runtime jar is not built yet: run `bin/smartssd build` in the "
                         "repository first (it leaves spark-runtime/target/spark-smartssd-runtime-*.jar), or set "
                         "SMARTSSD_RUNTIME_JAR to one")
    return built[-1]


class BuildWithJar(build_py):
    def run(self):
        super().run()
        dest = os.path.join(self.build_lib, "smartssd", "jars")
        os.makedirs(dest, exist_ok=True)
        for old in glob.glob(os.path.join(dest, "*.jar")):
            os.remove(old)
        shutil.copy2(runtime_jar(), os.path.join(dest, "spark-smartssd-runtime.jar"))


setup(cmdclass={"build_py": BuildWithJar})
