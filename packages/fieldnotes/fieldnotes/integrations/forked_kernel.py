"""The notebook's kernel started as a fork of the build's fork server, which has imported torch.

nbclient starts each kernel with jupyter_client, which launches `python -m ipykernel_launcher -f
CONNECTION_FILE` with `subprocess.Popen`: a fresh interpreter that imports torch again, beside the
fork server doing the same. `ForkedKernelManager` (nbclient's `kernel_manager_class`) gives its kernel
a provisioner that launches that very command as a fork of the server instead
(`fieldnotes.runner.start_module`): the same kernel (ipykernel, its connection file, environment,
folder and session), only without the interpreter's start and torch's import. Any other command (a
kernel of another interpreter or language) is launched as jupyter_client launches it.

This relies on jupyter_client's `KernelManager._async_pre_start_kernel` making a provisioner only when
it has none, and on what `LocalProvisioner.launch_kernel` sets (checked by `fieldnotes.integrations`).
"""

from __future__ import annotations

import os
import sys
import uuid

from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner
from jupyter_core.paths import jupyter_runtime_dir
from traitlets import CaselessStrEnum, default

from fieldnotes import runner

KERNEL_MODULE = "ipykernel_launcher"
RELIES_ON = ("jupyter-client", "nbclient", "ipykernel")
"""The distributions whose internals this relies on: it is used only with their tested versions."""


def forkable(cmd: list[str], kwargs: dict) -> bool:
    """Whether `cmd` is this interpreter's `python -m ipykernel_launcher ...`, launched with nothing a
    fork cannot give it (its own standard streams)."""
    own_streams = any(kwargs.get(name) is not None for name in ("stdin", "stdout", "stderr"))
    return len(cmd) > 3 and cmd[0] == sys.executable and cmd[1:3] == ["-m", KERNEL_MODULE] and not own_streams


class ForkedProvisioner(LocalProvisioner):
    async def launch_kernel(self, cmd: list[str], **kwargs):
        if not forkable(cmd, kwargs):
            return await super().launch_kernel(cmd, **kwargs)
        env = dict(kwargs.get("env") or os.environ)
        if not kwargs.get("independent"):
            env["JPY_PARENT_PID"] = str(os.getpid())  # as jupyter_client's launcher sets it
        cwd = str(kwargs.get("cwd") or os.getcwd())
        self.process = runner.start_module(KERNEL_MODULE, [os.path.expanduser(a) for a in cmd[3:]], env, cwd)
        self.pid = self.process.pid
        self.pgid = self.pid  # the child starts a session of its own
        self.cwd = cwd
        return self.connection_info


class ForkedKernelManager(AsyncKernelManager):
    # Local sockets, not TCP ports on localhost (ipykernel warns of TCP without encryption at every
    # start, in every build's log).
    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

    @default("ip")
    def _sockets_in_the_runtime_dir(self) -> str:
        # jupyter_client's own default for IPC is relative: the sockets would be made in the kernel's
        # folder, the notebook's under docs/, which `mkdocs serve` watches.
        folder = jupyter_runtime_dir()
        os.makedirs(folder, exist_ok=True)
        return os.path.join(folder, f"kernel-{uuid.uuid4().hex[:12]}-ipc")

    async def _async_pre_start_kernel(self, **kw):
        # A kernel spec that names a provisioner of its own keeps it.
        if self.provisioner is None and "kernel_provisioner" not in self.kernel_spec.metadata:
            self.kernel_id = self.kernel_id or kw.pop("kernel_id", str(uuid.uuid4()))
            self.provisioner = ForkedProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)
