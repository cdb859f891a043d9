#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <unistd.h>
#include "close_on_exec.h"

int earshot_accept4_cloexec_nonblock(int listener) {
    return accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

int earshot_pipe2_cloexec_nonblock(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}
