// SPDX-License-Identifier: MIT
/*
 * weft-model-server: the Weft device model as an ivshmem server for QEMU's
 * ivshmem-doorbell device (docs/specs/ivshmem-spec.rst in QEMU).
 *
 *   weft-model-server --socket PATH --guest-mem PATH [--threads N] [--watchdog N]
 *
 * Peer ids: the device is peer 0 (published in WEFT_REG_DOORBELL_PEER), the
 * one QEMU client is peer 1.  BAR2 is a memfd of WEFT_REGS_SIZE bytes holding
 * the register file.  The guest's doorbell writes the device's eventfd; the
 * model interrupts the guest by writing the client's vector-0 eventfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "weft_model.h"
#include "weft_regs.h"

#define DEVICE_PEER	0
#define CLIENT_PEER	1

static void die(const char *what)
{
	fprintf(stderr, "weft-model-server: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One protocol message: a little-endian int64, optionally with an fd. */
static int send_msg(int sock, int64_t v, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &v, sizeof(v) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		r = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == sizeof(v) ? 0 : -1;
}

static void irq_cb(void *ctx, unsigned vector)
{
	int fd = *(int *)ctx;
	uint64_t one = 1;

	(void)vector;
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		fprintf(stderr, "weft-model-server: interrupt: %s\n", strerror(errno));
}

/*
 * Maps the guest RAM file (GPA = file offset).  QEMU opens the chardev before
 * it creates memory backends, so at connect time the file may not exist yet:
 * the server then retries at every doorbell (the guest runs by then).
 */
static int map_guest_mem(const char *path, void **mem, uint64_t *size, bool complain)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		if (complain)
			fprintf(stderr, "weft-model-server: %s: %s\n", path,
				fd < 0 ? strerror(errno) : "empty guest memory file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "weft-model-server: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	*mem = p;
	*size = st.st_size;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: weft-model-server --socket PATH --guest-mem PATH [--threads N] "
		   "[--watchdog INSTRUCTIONS]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "guest-mem", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *sock_path = NULL, *mem_path = NULL;
	struct weft_model_config cfg = { 0 };
	struct weft_model *model = NULL;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int shm_fd, dev_efd, cli_efd, lsock, csock = -1, sfd, c, status = 0;
	unsigned threads = 0, mem_warned = 0;
	void *regs, *mem = NULL;
	uint64_t mem_size = 0;
	sigset_t sigs;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 's': sock_path = optarg; break;
		case 'm': mem_path = optarg; break;
		case 't':
			threads = strtoul(optarg, &end, 0);
			if (*end || !*optarg || threads > 1024) {
				usage(stderr);
				return 2;
			}
			break;
		case 'w':
			cfg.watchdog = strtoull(optarg, &end, 0);
			if (*end || !*optarg) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!sock_path || !mem_path || optind != argc ||
	    strlen(sock_path) >= sizeof(addr.sun_path)) {
		usage(stderr);
		return 2;
	}
	if (!threads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		threads = n > 0 ? (unsigned)n : 1;
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd");

	shm_fd = memfd_create("weft-regs", MFD_CLOEXEC);
	if (shm_fd < 0 || ftruncate(shm_fd, WEFT_REGS_SIZE))
		die("register file memfd");
	regs = mmap(NULL, WEFT_REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
	if (regs == MAP_FAILED)
		die("mmap register file");
	weft_model_init_regs(regs, DEVICE_PEER, threads);
	dev_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	cli_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (dev_efd < 0 || cli_efd < 0)
		die("eventfd");

	lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock < 0)
		die("socket");
	strcpy(addr.sun_path, sock_path);
	unlink(sock_path);
	if (bind(lsock, (struct sockaddr *)&addr, sizeof(addr)) || listen(lsock, 1))
		die(sock_path);
	printf("ready\n");
	fflush(stdout);

	for (;;) {
		struct pollfd pfd[3];
		int n = 0;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (csock < 0)
			pfd[n++] = (struct pollfd){ .fd = lsock, .events = POLLIN };
		else {
			pfd[n++] = (struct pollfd){ .fd = csock, .events = POLLIN };
			pfd[n++] = (struct pollfd){ .fd = dev_efd, .events = POLLIN };
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (pfd[0].revents)
			break;	/* SIGTERM / SIGINT */
		if (csock < 0 && pfd[1].revents) {
			csock = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
			if (csock < 0) {
				fprintf(stderr, "weft-model-server: accept: %s\n", strerror(errno));
				continue;
			}
			map_guest_mem(mem_path, &mem, &mem_size, false);
			cfg.regs = regs;
			cfg.mem = mem;
			cfg.mem_size = mem_size;
			cfg.threads = threads;
			cfg.doorbell_peer = DEVICE_PEER;
			cfg.irq = irq_cb;
			cfg.irq_ctx = &cli_efd;
			model = weft_model_create(&cfg);
			if (!model)
				die("creating the model");
			if (send_msg(csock, 0, -1) || send_msg(csock, CLIENT_PEER, -1) ||
			    send_msg(csock, -1, shm_fd) || send_msg(csock, DEVICE_PEER, dev_efd) ||
			    send_msg(csock, CLIENT_PEER, cli_efd)) {
				fprintf(stderr, "weft-model-server: sending to the client: %s\n",
					strerror(errno));
				status = 1;
				break;
			}
			continue;
		}
		if (csock >= 0 && pfd[2].revents & POLLIN) {
			uint64_t v;

			while (read(dev_efd, &v, sizeof(v)) == sizeof(v))
				;
			/* QEMU connects before it creates the RAM file: map it late. */
			if (!mem && !map_guest_mem(mem_path, &mem, &mem_size, !mem_warned++))
				weft_model_set_guest_mem(model, mem, mem_size);
			weft_model_doorbell(model);
		}
		if (csock >= 0 && pfd[1].revents) {
			char buf[64];
			ssize_t r = recv(csock, buf, sizeof(buf), MSG_DONTWAIT);

			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
				break;	/* the client went away */
		}
	}
	weft_model_destroy(model);
	if (csock >= 0)
		close(csock);
	close(lsock);
	unlink(sock_path);
	if (mem)
		munmap(mem, mem_size);
	return status;
}
