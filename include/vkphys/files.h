/// \file
/// Writing a file whole or not at all: the way the library writes every output (frames,
/// metrics, checkpoints, pictures), for a program's own files beside them.
#pragma once

#include <filesystem>
#include <string_view>

#include "vkphys/export.h"

namespace vkphys {

/// How far write_file_atomic gets before it returns.
enum class Durability {
  buffered,  ///< the file survives the process being killed (the page cache has it)
  /// the file also survives a power cut or a kernel crash: the file and the rename are flushed
  /// to the disk with fsync, at a disk flush's cost
  synced,
};

/// Writes `bytes` to `path` through `path`.partial and a rename, so a reader never sees a torn
/// file under `path` (an older file there stays whole until the rename replaces it). Throws
/// Error "cannot write PATH: REASON" if it cannot.
VKPHYS_API void write_file_atomic(const std::filesystem::path& path, std::string_view bytes,
                                  Durability durability = Durability::buffered);

}  // namespace vkphys
