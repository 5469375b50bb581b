/* A TCP relay that holds every chunk it reads for a fixed delay before forwarding it: the
 * network latency between `comptoir serve` and PostgreSQL in benchmarks/two_hosts.py (the
 * kernel there has no netem).
 *
 *     delay_relay LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MICROSECONDS
 *
 * Each chunk (one read) is forwarded at its arrival time + the delay, in order: a delay per
 * chunk, not a queue that adds up. Every chunk waits the same delay, so one global queue in
 * arrival order is also in due order; a timerfd (nanoseconds, unlike epoll's milliseconds)
 * wakes the loop when the head is due. With a delay of 0 a chunk is written as soon as it is
 * read: the relay's own cost. One thread; writes block (the peers here read promptly).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65536
#define MAXFD 65536

struct item {
    struct item *next;
    uint64_t due;
    int to;   /* the socket it goes to */
    size_t len;
    char data[];
};

static int peer[MAXFD];     /* the other end of each relayed socket, -1 if none */
static int closing[MAXFD];  /* read side ended: shut the peer's write side once drained */
static int pending[MAXFD];  /* chunks queued towards each socket */
static struct item *head, *tail;
static int ep, tfd, armed;
static uint64_t delay_ns;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void arm(void) {
    struct itimerspec spec = {0};
    if (head) {
        spec.it_value.tv_sec = head->due / 1000000000ull;
        spec.it_value.tv_nsec = head->due % 1000000000ull;
        if (!spec.it_value.tv_sec && !spec.it_value.tv_nsec) spec.it_value.tv_nsec = 1;
    }
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &spec, NULL);
    armed = head != NULL;
}

static void close_pair(int fd) {
    int other = peer[fd];
    if (fd >= 0 && peer[fd] != -2) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
        peer[fd] = -2;
    }
    if (other >= 0 && peer[other] != -2) {
        epoll_ctl(ep, EPOLL_CTL_DEL, other, NULL);
        close(other);
        peer[other] = -2;
    }
}

static void send_all(int to, const char *data, size_t len) {
    while (len) {
        ssize_t n = send(to, data, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return; /* the peer went away: its reader will see it */
        }
        data += n;
        len -= (size_t)n;
    }
}

/* Both read sides ended and nothing is queued either way: the pair's sockets close (not
 * before, or a queued chunk could reach a new connection given the same descriptor). */
static void maybe_close(int fd) {
    int other = peer[fd];
    if (other >= 0 && closing[fd] && closing[other] && !pending[fd] && !pending[other]) close_pair(fd);
}

static void after_send(int to) {
    pending[to]--;
    int from = peer[to];
    if (pending[to] == 0 && from >= 0 && closing[from]) shutdown(to, SHUT_WR);
    if (from >= 0) maybe_close(to);
}

static void flush_due(void) {
    uint64_t now = now_ns();
    while (head && head->due <= now) {
        struct item *it = head;
        head = it->next;
        if (!head) tail = NULL;
        if (peer[it->to] != -2) {
            send_all(it->to, it->data, it->len);
            after_send(it->to);
        }
        free(it);
    }
    arm();
}

static void on_readable(int fd) {
    char buf[CHUNK];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    int to = peer[fd];
    if (n > 0) {
        if (delay_ns == 0 && !head) {
            send_all(to, buf, (size_t)n);
            return;
        }
        struct item *it = malloc(sizeof *it + (size_t)n);
        it->next = NULL;
        it->due = now_ns() + delay_ns;
        it->to = to;
        it->len = (size_t)n;
        memcpy(it->data, buf, (size_t)n);
        if (tail) tail->next = it; else head = it;
        tail = it;
        pending[to]++;
        if (!armed) arm();
        return;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    /* end of stream (or an error): pass the half-close on once the chunks before it are out */
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
    closing[fd] = 1;
    if (to >= 0 && pending[to] == 0) shutdown(to, SHUT_WR);
    maybe_close(fd);
}

static int connect_to(const char *host, const char *port) {
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res)) return -1;
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_US\n", argv[0]);
        return 2;
    }
    delay_ns = strtoull(argv[5], NULL, 10) * 1000ull;
    for (int i = 0; i < MAXFD; i++) peer[i] = -2;
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if (getaddrinfo(argv[1], argv[2], &hints, &res)) {
        perror("getaddrinfo");
        return 1;
    }
    int lfd = socket(res->ai_family, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd, res->ai_addr, res->ai_addrlen) < 0 || listen(lfd, 512) < 0) {
        perror("listen");
        return 1;
    }
    freeaddrinfo(res);
    ep = epoll_create1(0);
    tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = lfd;
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    ev.data.fd = tfd;
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
    fprintf(stderr, "relay %s:%s -> %s:%s, %s us per chunk\n", argv[1], argv[2], argv[3], argv[4], argv[5]);
    struct epoll_event events[256];
    for (;;) {
        int n = epoll_wait(ep, events, 256, -1);
        if (n < 0 && errno == EINTR) continue;
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == lfd) {
                int c = accept(lfd, NULL, NULL);
                if (c < 0 || c >= MAXFD) continue;
                int u = connect_to(argv[3], argv[4]);
                if (u < 0 || u >= MAXFD) {
                    close(c);
                    continue;
                }
                nodelay(c);
                nodelay(u);
                peer[c] = u;
                peer[u] = c;
                closing[c] = closing[u] = 0;
                pending[c] = pending[u] = 0;
                ev.data.fd = c;
                epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
                ev.data.fd = u;
                epoll_ctl(ep, EPOLL_CTL_ADD, u, &ev);
            } else if (fd == tfd) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof expirations) < 0) { /* spurious */ }
                flush_due();
            } else if (peer[fd] != -2) {
                on_readable(fd);
            }
        }
        if (head && head->due <= now_ns()) flush_due();
    }
}
