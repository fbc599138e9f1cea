/* The wait events walsim reports, named as pg_stat_activity names them (wait_event_type:wait_event). */
#pragma once

#include "sim/wait_events.hpp"

namespace pg {

struct WaitEvents {
  explicit WaitEvents(sim::WaitEventNames& names);

  sim::WaitEventId WALInsert;            // LWLock:WALInsert
  sim::WaitEventId WALWriteLock;         // LWLock:WALWrite
  sim::WaitEventId WALBufMapping;        // LWLock:WALBufMapping
  sim::WaitEventId XactSLRU;             // LWLock:XactSLRU (CLogControlLock)
  sim::WaitEventId XactGroupUpdate;      // IPC:XactGroupUpdate
  sim::WaitEventId ProcArray;            // LWLock:ProcArray
  sim::WaitEventId ProcArrayGroupUpdate; // IPC:ProcArrayGroupUpdate
  sim::WaitEventId XidGen;               // LWLock:XidGen
  sim::WaitEventId BufferContent;        // LWLock:BufferContent
  sim::WaitEventId LockManager;          // LWLock:LockManager
  sim::WaitEventId IoWALWrite;           // IO:WALWrite
  sim::WaitEventId IoWALSync;            // IO:WALSync
  sim::WaitEventId IoSLRURead;           // IO:SLRURead
  sim::WaitEventId IoDataFileRead;       // IO:DataFileRead
  sim::WaitEventId IoDataFileWrite;      // IO:DataFileWrite
  sim::WaitEventId LockTransactionId;    // Lock:transactionid
  sim::WaitEventId LockTuple;            // Lock:tuple
  sim::WaitEventId LockExtend;           // Lock:extend
  sim::WaitEventId ClientRead;           // Client:ClientRead
  sim::WaitEventId CommitDelay;          // Timeout:CommitDelay
  sim::WaitEventId WalWriterMain;        // Activity:WalWriterMain
  sim::WaitEventId PgbenchSelect;        // pgbench threads waiting for results (not a server event)
  sim::WaitEventId XactBuffer;           // LWLock:XactBuffer (a CLOG buffer's lock, held during its I/O)
  sim::WaitEventId IoSLRUWrite;          // IO:SLRUWrite
};

} // namespace pg
