"""Type outline of the vkphys extension module (python/vkphys_module.cpp)."""
import enum
import os
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

__version__: str

class Error(RuntimeError):
    """Every failure: one line, the same the vkphys CLI prints."""

def builtin_scene_names() -> list[str]: ...
def builtin_scene(name: str, size: int = 0) -> dict[str, Any]:
    """A built-in scene as a dict for World.from_dict (size 0: its default)."""

def gpu_devices() -> list[dict[str, Any]]:
    """The Vulkan devices with a compute queue: index, name, type, driver, api_version,
    device_local_bytes, max_storage_buffer_range, max_workgroup_invocations,
    max_compute_shared_memory, subgroup_size, timestamps."""
def validation_errors_reported() -> int:
    """The validation layer's errors in this process so far, over every World."""

class Field(enum.Enum):
    body_position = ...
    body_orientation = ...
    body_velocity = ...
    body_angular_velocity = ...
    particle_position = ...
    particle_velocity = ...

class Snapshot:
    """A checkpoint: World.load continues it bit-identically on the backend that saved it."""
    def write(self, path: str | os.PathLike[str]) -> None: ...
    @staticmethod
    def read(path: str | os.PathLike[str]) -> Snapshot: ...
    @property
    def step(self) -> int: ...
    @property
    def backend(self) -> str: ...

Array = npt.NDArray[np.float32]
"""An (n, 4) float32 array."""

Picture = npt.NDArray[np.uint8]
"""A (height, width, 4) uint8 RGBA array, rows top to bottom."""

Camera = dict[str, Any]
"""position, target, up: 3-tuples [m]; fov_y_deg: float in (0, 180)."""

Grab = dict[str, Any]
"""What World.pick hit: particle (bool), index, local (x, y, z) [m] and depth [m]."""

class World:
    """One simulated world: a scene on a backend ("cpu" or "gpu")."""
    def __init__(self) -> None: ...
    @staticmethod
    def from_file(path: str, backend: str = "cpu", device: str = "",
                  validation: bool = False, sync_validation: bool = False,
                  record_contacts: bool = False) -> World: ...
    @staticmethod
    def from_json(json: str, backend: str = "cpu", device: str = "",
                  validation: bool = False, sync_validation: bool = False,
                  record_contacts: bool = False) -> World: ...
    @staticmethod
    def from_dict(scene: dict[str, Any], backend: str = "cpu", device: str = "",
                  validation: bool = False, sync_validation: bool = False,
                  record_contacts: bool = False) -> World: ...
    @staticmethod
    def load(snapshot: Snapshot, backend: str = "", device: str = "",
             validation: bool = False, sync_validation: bool = False,
             record_contacts: bool = False) -> World: ...
    def step(self, n: int = 1,
             after_each: Callable[[], None] | None = None) -> None: ...
    @property
    def steps(self) -> int: ...
    @property
    def time(self) -> float: ...
    @property
    def backend_name(self) -> str: ...
    @property
    def body_count(self) -> int: ...
    @property
    def particle_count(self) -> int: ...
    def state(self, field: Field) -> Array:
        """A read-only view (no copy) that shows every later step's state."""
    def write(self, field: Field, index: int,
              value: tuple[float, float, float, float]) -> None: ...
    def pick(self, origin: tuple[float, float, float],
             direction: tuple[float, float, float]) -> Grab | None:
        """The nearest dynamic body or particle the ray enters, or None."""
    def pull(self, grab: Grab, target: tuple[float, float, float]
             ) -> tuple[float, float, float]:
        """One step's mouse-spring impulse towards target, into the velocities now; the force."""
    def contacts(self) -> dict[str, int]: ...
    def metrics(self) -> dict[str, Any]: ...
    def compare(self, other: World) -> dict[str, float | int]: ...
    def statistics(self) -> dict[str, Any]:
        """The last step's statistics (all zero before the first step); "stages" maps each
        stage's name to its time [ms], the mean over the last step() call's steps, in step
        order."""
    def constraint_errors(self) -> dict[str, float]:
        """max/mean_rigid_penetration [m], max/mean_joint_error [m], max/mean_spring_strain
        after the last step; a scene with rigid bodies needs record_contacts=True."""
    def spring_stability(self) -> dict[str, Any]:
        """The explicit stability bound of the scene's force springs: spring, k, c, mass_a,
        mass_b (inf: pinned), omega, bound, step, network_bound, substeps_needed, past,
        assured, warning (empty when assured)."""
    def camera(self) -> Camera:
        """The camera render uses by default (the scene's, or one framing the state)."""
    def render(self, width: int, height: int, camera: Camera | None = None,
               path: str | os.PathLike[str] | None = None) -> Picture:
        """The current state drawn on a Vulkan device; with path, also written as a PNG."""
    def save(self) -> Snapshot: ...
    @property
    def validation_errors(self) -> int:
        """The validation layer's errors (validation or sync_validation, GPU); 0 otherwise."""
    # Read-only (n, 4) views; assigning an (n, 4) array writes the state (checked).
    body_positions: Array
    body_orientations: Array
    body_velocities: Array
    body_angular_velocities: Array
    particle_positions: Array
    particle_velocities: Array
