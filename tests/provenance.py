#!/usr/bin/env python3
"""The provenance in result files (docs/design.md, "Output files"). On a generated 64x36 raw
pair: a CPU run's JSON has no "provenance" unless --provenance; with it, JSON and XML name
vmafx's version and the commit `git describe` gives for the source tree (when it is a git
checkout holding the binary's commit), every model with the SHA-256 that Python's hashlib computes of the same bytes
(built-in models: models/VERSION.json; a model file with '&' and '"' in its path, escaped in
both formats), and every metric instance with backend "cpu" and contract "reference". With a
usable CUDA device, a --backend cuda run also names the device and gives each twin's metric
contract "exact"; skipped (said) otherwise. Usage: provenance.py VMAFX_BINARY"""
import hashlib, json, os, random, shutil, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(binary, args, out):
    r = subprocess.run([binary, *args, "-o", out, "-q"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"vmafx {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="vmafx-provenance-")
    try:
        rng = random.Random(7)
        size = 64 * 36 * 3 // 2 * 3
        ref, dist = os.path.join(work, "ref.yuv"), os.path.join(work, "dist.yuv")
        with open(ref, "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(size)))
        with open(dist, "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(size)))
        odd_model = os.path.join(work, 'm&"odd.json')
        shutil.copyfile(os.path.join(ROOT, "models", "vmaf_v0.6.1.json"), odd_model)
        raw = ["-r", ref, "-d", dist, "-w", "64", "-h", "36", "-p", "420", "-b", "8"]
        models = ["-m", "version=vmaf_v0.6.1", "-m", "version=vmaf_b_v0.6.3:name=vmaf_b", "-m", f"path={odd_model}:name=odd"]
        want_models = [("vmaf", "vmaf_v0.6.1", sha256(os.path.join(ROOT, "models", "vmaf_v0.6.1.json"))),
                       ("vmaf_b", "vmaf_b_v0.6.3", sha256(os.path.join(ROOT, "models", "vmaf_b_v0.6.3.json"))),
                       ("odd", odd_model, sha256(odd_model))]

        plain = os.path.join(work, "plain.json")
        run(binary, raw + ["--json"], plain)
        check("provenance" not in json.load(open(plain)), "a CPU run without --provenance has no provenance")

        out = os.path.join(work, "p.json")
        run(binary, raw + models + ["--feature", "psnr", "--json", "--provenance"], out)
        p = json.load(open(out))["provenance"]
        version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split()[1]
        check(p["vmafx"] == version, f"vmafx version {p['vmafx']!r} is --version's {version!r}")
        check(p["libvmaf"] == "3.2.0", "libvmaf 3.2.0")
        described = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty", "--abbrev=12"],
                                   capture_output=True, text=True)
        built = p["commit"].split("-dirty")[0]
        known = subprocess.run(["git", "-C", ROOT, "cat-file", "-e", built + "^{commit}"],
                               capture_output=True).returncode == 0
        if described.returncode == 0 and known:
            # The build ran `git describe` at build time: the tree may have changed since (dirty).
            check(built == described.stdout.strip().split("-dirty")[0],
                  f"commit {p['commit']!r} is git describe's {described.stdout.strip()!r} (a binary built "
                  "at another commit of this checkout: rebuild it)")
        elif described.returncode == 0:
            # A binary built from another clone (e.g. carried to a GPU machine).
            print(f"the binary's commit {p['commit']!r} is not in this checkout: not compared")
        else:
            print("not a git checkout (or no git): the commit is not compared")
        got_models = [(m["name"], m["source"], m["sha256"]) for m in p["models"]]
        check(got_models == want_models, f"models {got_models} are {want_models}")
        check(list(p["metrics"]) == ["adm", "motion", "vif", "psnr"], f"metrics {list(p['metrics'])}")
        check(all(m == {"backend": "cpu", "contract": "reference"} for m in p["metrics"].values()),
              "every metric of a CPU run: cpu, reference")
        check("device" not in p, "a CPU run names no device")

        xml_out = os.path.join(work, "p.xml")
        run(binary, raw + models + ["--feature", "psnr", "--xml", "--provenance"], xml_out)
        x = ET.parse(xml_out).getroot().find("provenance")
        check(x is not None and x.get("commit") == p["commit"] and x.get("vmafx") == p["vmafx"],
              "XML provenance as JSON's")
        if x is not None:
            check([(m.get("name"), m.get("source"), m.get("sha256")) for m in x.findall("model")] == want_models,
                  "XML models (the odd path escaped and parsed back)")
            check([m.get("name") for m in x.findall("metric")] == list(p["metrics"]), "XML metrics")

        gpu = subprocess.run([binary, *raw, "--backend", "cuda", "--json", "-o", os.path.join(work, "g.json"), "-q"],
                             capture_output=True, text=True)
        if gpu.returncode != 0:
            print("GPU part skipped: --backend cuda refused here:", gpu.stderr.strip().splitlines()[-1:])
        else:
            g = json.load(open(os.path.join(work, "g.json")))["provenance"]
            check(bool(g.get("device", {}).get("name")) and bool(g["device"].get("compute_capability")),
                  f"a GPU run names its device: {g.get('device')}")
            check(all(m == {"backend": "cuda", "contract": "exact"} for m in g["metrics"].values()),
                  f"vmaf_v0.6.1's twins: cuda, exact: {g['metrics']}")
    finally:
        shutil.rmtree(work)
    print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
