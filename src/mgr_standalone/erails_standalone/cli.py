"""erails-ctl MODULE COMMAND...: the commands `ceph MODULE ...` gives where the module runs in
ceph-mgr, sent to the active erails-controller of MODULE instead; plus `config set` for the
module's options, which it writes into the config database as the mgr module's would be.

  erails-ctl rails status -f json
  erails-ctl qbox set client.alice 0.3
  erails-ctl rails config set poll_seconds 0.5

Exits with the command's errno, as `ceph` does, after printing "Error <NAME>: <message>".
"""
import argparse
import errno
import json
import sys
import threading
from typing import Dict, List, Optional, Tuple, Union

import rados

from . import channel
from .host import CommandSpec, commands_of, rados_errno
from .service import HEALTH_FORMATS, MODULES, load_module_class

Outcome = Tuple[int, str, str]


def module_commands(module: str) -> Dict[str, CommandSpec]:
    specs = commands_of(load_module_class(module))
    health = f"{module} health"
    specs[health] = CommandSpec(health, "", True, ["format"], [], "Show the controller's health checks")
    return specs


def module_options(module: str) -> Dict[str, dict]:
    return {option["name"]: option for option in load_module_class(module).MODULE_OPTIONS}


def parse_command(words: List[str], fmt: Optional[str], specs: Dict[str, CommandSpec]) -> Union[dict, str]:
    """The request for `words` (the module's name first), or why there is none."""
    matching = [spec for spec in specs.values() if words[:len(spec.prefix.split())] == spec.prefix.split()]
    if not matching:
        return f"unknown command {' '.join(words)!r}; accepted:\n" + usage(specs)
    spec = max(matching, key=lambda s: len(s.prefix.split()))
    values = words[len(spec.prefix.split()):]
    positional = [name for name in spec.params if name != "format"]
    if len(values) > len(positional):
        return f"{spec.prefix}: too many arguments ({' '.join(values)}); usage: {synopsis(spec)}"
    request = {"prefix": spec.prefix, **dict(zip(positional, values))}
    if fmt is not None:
        if "format" not in spec.params:
            return f"{spec.prefix} takes no --format"
        request["format"] = fmt
    return request


def synopsis(spec: CommandSpec) -> str:
    words = [f"<{name}>" if name in spec.required else f"[<{name}>]" for name in spec.params if name != "format"]
    if "format" in spec.params:
        words.append("[-f plain|json|json-pretty]")
    return " ".join([spec.prefix] + words)


def usage(specs: Dict[str, CommandSpec]) -> str:
    return "".join(f"  {synopsis(spec):<64} {spec.help}\n" for _, spec in sorted(specs.items()))


def check_option(module: str, name: str, value: str) -> Optional[str]:
    """Why `value` is not accepted for the module's option `name`, or None."""
    options = module_options(module)
    if name not in options:
        return f"mgr/{module}/{name} is not an option of {module}; accepted: {', '.join(sorted(options))}"
    option = options[name]
    kind = option.get("type", "str")
    if kind == "bool":
        if value.lower() not in ("true", "false"):
            return f"mgr/{module}/{name} is {value!r}; accepted: true or false"
        return None
    try:
        number = int(value) if kind == "int" else float(value)
    except ValueError:
        return f"mgr/{module}/{name} is {value!r}; accepted: {'a whole number' if kind == 'int' else 'a number'}"
    low, high = option.get("min"), option.get("max")
    if low is not None and high is not None and not low <= number <= high:
        return f"mgr/{module}/{name} is {value!r}; accepted: {low:g}..{high:g}"
    return None


def send(cluster: rados.Rados, pool: str, module: str, request: dict) -> Outcome:
    """The active controller's answer to `request`."""
    not_running = (-errno.ENOENT, "", f"no {module} controller is active (pool {pool}): start one, e.g. "
                                      f"`systemctl start erails-controller@{module}`")
    if not cluster.pool_exists(pool):
        return not_running
    ioctx = cluster.open_ioctx(pool)
    done = threading.Event()
    answer: dict = {}

    def complete(_completion, ret, acks, timeouts):
        answer.update(ret=ret, acks=acks or [], timeouts=timeouts or [])
        done.set()
    try:
        ioctx.aio_notify(channel.control_object(module), complete, msg=json.dumps(request),
                         timeout_ms=channel.NOTIFY_TIMEOUT_MS)
    except rados.ObjectNotFound:
        return not_running
    if not done.wait(channel.NOTIFY_TIMEOUT_MS / 1000 + 10):
        return -errno.ETIMEDOUT, "", f"the {module} controller did not answer in {channel.NOTIFY_TIMEOUT_MS // 1000} s"
    replies = [channel.decode_reply(payload) for _, _, payload in answer["acks"]]
    replies = [reply for reply in replies if reply is not None]
    if replies:
        return replies[0]
    if answer["timeouts"] or answer["ret"] == -errno.ETIMEDOUT:
        return -errno.ETIMEDOUT, "", f"the {module} controller did not answer in {channel.NOTIFY_TIMEOUT_MS // 1000} s"
    if answer["ret"] not in (0, -errno.ENOENT):
        return answer["ret"], "", f"notifying {pool}/{channel.control_object(module)} failed"
    return not_running


def set_option(cluster: rados.Rados, module: str, name: str, value: str) -> Outcome:
    refused = check_option(module, name, value)
    if refused:
        return -errno.EINVAL, "", refused
    # --force: the monitors know a module's options only from a mgr that runs the module.
    ret, out, err = cluster.mon_command(json.dumps({"prefix": "config set", "who": "mgr",
                                                    "name": f"mgr/{module}/{name}", "value": value,
                                                    "force": True}), b"", 30)
    return ret, out.decode(errors="replace"), err


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="erails-ctl", description=__doc__.splitlines()[0],
                                     epilog="COMMAND: `erails-ctl MODULE help` lists a module's commands")
    parser.add_argument("-c", "--conf", default="", help="ceph.conf (default: Ceph's search, CEPH_CONF)")
    parser.add_argument("-n", "--name", default="client.admin", help="cephx user (default client.admin)")
    parser.add_argument("--pool", default=channel.DEFAULT_POOL, help=f"the controllers' pool (default "
                                                                     f"{channel.DEFAULT_POOL})")
    parser.add_argument("-f", "--format", choices=HEALTH_FORMATS)
    parser.add_argument("module", choices=MODULES)
    parser.add_argument("words", nargs="+", metavar="COMMAND")
    return parser.parse_args(argv)


def finish(outcome: Outcome) -> int:
    ret, out, err = outcome
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    if ret != 0:
        print(f"Error {errno.errorcode.get(-ret, str(ret))}: {err.strip()}", file=sys.stderr)
        return min(-ret, 255) if ret < 0 else 1
    if err.strip():
        print(err.strip(), file=sys.stderr)
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    words = [args.module] + args.words
    specs = module_commands(args.module)
    if args.words == ["help"]:
        sys.stdout.write(usage(specs) + f"  {args.module} config set <name> <value>\n")
        return 0
    is_config = args.words[:2] == ["config", "set"]
    if is_config and len(args.words) != 4:
        return finish((-errno.EINVAL, "", f"usage: erails-ctl {args.module} config set <name> <value>"))
    request = None if is_config else parse_command(words, args.format, specs)
    if isinstance(request, str):
        return finish((-errno.EINVAL, "", request))
    cluster = rados.Rados(conffile=args.conf, name=args.name)
    try:
        cluster.connect(timeout=30)
    except rados.Error as error:
        return finish((rados_errno(error), "", f"cannot connect to the cluster as {args.name}: {error}"))
    try:
        if is_config:
            return finish(set_option(cluster, args.module, args.words[2], args.words[3]))
        return finish(send(cluster, args.pool, args.module, request))
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    sys.exit(main())
