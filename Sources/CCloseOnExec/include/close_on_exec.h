#ifndef EARSHOT_CLOSE_ON_EXEC_H
#define EARSHOT_CLOSE_ON_EXEC_H

/* accept4(2) and pipe2(2) with close-on-exec and non-blocking set by the kernel in the same call:
 * no window in which another thread's fork/exec inherits the descriptor. Swift's Glibc module
 * does not export them (they need _GNU_SOURCE), hence this shim. Each returns what the call
 * returns (-1 with errno set on failure). */
int earshot_accept4_cloexec_nonblock(int listener);
int earshot_pipe2_cloexec_nonblock(int fds[2]);

#endif
