#include "models/wait_event.hpp"

namespace pg {

WaitEvents::WaitEvents(sim::WaitEventNames& n)
    : WALInsert(n.intern("LWLock:WALInsert")), WALWriteLock(n.intern("LWLock:WALWrite")),
      WALBufMapping(n.intern("LWLock:WALBufMapping")), XactSLRU(n.intern("LWLock:XactSLRU")),
      XactGroupUpdate(n.intern("IPC:XactGroupUpdate")), ProcArray(n.intern("LWLock:ProcArray")),
      ProcArrayGroupUpdate(n.intern("IPC:ProcArrayGroupUpdate")), XidGen(n.intern("LWLock:XidGen")),
      BufferContent(n.intern("LWLock:BufferContent")), LockManager(n.intern("LWLock:LockManager")),
      IoWALWrite(n.intern("IO:WALWrite")), IoWALSync(n.intern("IO:WALSync")), IoSLRURead(n.intern("IO:SLRURead")),
      IoDataFileRead(n.intern("IO:DataFileRead")), IoDataFileWrite(n.intern("IO:DataFileWrite")),
      LockTransactionId(n.intern("Lock:transactionid")), LockTuple(n.intern("Lock:tuple")),
      LockExtend(n.intern("Lock:extend")), ClientRead(n.intern("Client:ClientRead")),
      CommitDelay(n.intern("Timeout:CommitDelay")), WalWriterMain(n.intern("Activity:WalWriterMain")),
      PgbenchSelect(n.intern("pgbench:select")), XactBuffer(n.intern("LWLock:XactBuffer")),
      IoSLRUWrite(n.intern("IO:SLRUWrite"))
{
}

} // namespace pg
