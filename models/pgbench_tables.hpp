/* Tuple sizes of the tables pgbench -i creates (pgbench.c's CREATE TABLEs, laid out as
 * heaptuple.c stores them). */
#pragma once

namespace pg {

int branches_tuple_bytes();
int tellers_tuple_bytes();
int accounts_tuple_bytes();
int history_tuple_bytes();

} // namespace pg
