"""The command that builds the hot modules' compiled twins (kafka_zk/compiled.py) and says which are current."""

import argparse
import os
import sys

from kafka_zk import compiled


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m kafka_zk.tools.compile_twins",
        description="Compile the hot modules whose source changed since their twin was built (Cython and a C "
        "compiler), list which twins are current, or write the hot messages' generated codecs (codecs): a module "
        "the twins compile. Twins live in build/compiled/; KAFKA_ZK_INTERPRETED=1 runs without them.",
    )
    parser.add_argument("action", choices=("build", "status", "codecs"))
    args = parser.parse_args(argv)
    if args.action == "codecs":  # the hot messages' generated codecs, written where a twin is compiled from
        from kafka_zk.protocol import codec_module

        text = codec_module.generated_codecs_source(codec_module.generated_schemas())
        with open(os.path.join(compiled.PROJECT_ROOT, codec_module.GENERATED_MODULE), "w") as module:
            module.write(text)
        print("wrote %s (%d lines)" % (codec_module.GENERATED_MODULE, text.count("\n")))
        return 0
    if args.action == "build":
        stale = compiled.stale_modules()
        built = compiled.build()
        print(
            "compiled twins: %d compiled, %d from this machine's cache, %d already current"
            % (len(built), len(stale) - len(built), len(compiled.HOT_MODULES) - len(stale))
        )
        return 0
    stale = compiled.stale_modules()
    for module in compiled.HOT_MODULES:
        print("%-48s %s" % (module, "stale" if module in stale else "current"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
