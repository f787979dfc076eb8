// Payloads of models without math (`profile`): a message is a size and a dimension, no
// bytes (docs/design.md §6). Every message of one (bits, dimension) shares one immutable
// Encoded, kept for the life of the process like an interned string, and is handed out
// without a reference count: an aliasing std::shared_ptr with no owner. Copying a message
// into a transfer, moving it through a mailbox and dropping it after mixing then touch
// no counter and no per-sender buffer, and a million workers' senders own nothing.
//
// Nothing may write through such a payload (nothing does: Payload points to const), and
// its use_count() is 0, so it must never be handed to a PayloadPool.
#pragma once

#include <cstdint>

#include "sim/network/message.hpp"

namespace dlsim::sim {

/// The shared payload of `bits` and `dimension` without bytes. Thread-safe.
Payload sized_payload(std::uint64_t bits, std::int64_t dimension);

}  // namespace dlsim::sim
