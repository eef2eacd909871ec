"""`python3 -m vmafx report|batch ...`: the entry points of the package's commands (the `vmafx`
command's --html runs `report`, python/vmafx/report.py main(); `batch` is vmafx-batch,
python/vmafx/batch.py main())."""
import sys


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["report"]:
        from .report import main as report_main

        return report_main(args[1:])
    if args[:1] == ["batch"]:
        from .batch import main as batch_main

        return batch_main(args[1:])
    print("usage: python3 -m vmafx report --result FILE.json -o REPORT.html [...]  (report --help)\n"
          "       python3 -m vmafx batch MANIFEST --out DIR [...]  (the vmafx-batch command; batch --help)",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
