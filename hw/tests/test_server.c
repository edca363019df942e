// SPDX-License-Identifier: MIT
/*
 * weft-model-server protocol test: connects over the unix socket the way
 * QEMU's ivshmem-doorbell does, receives the fds, checks the register file,
 * does the handshake through the doorbell eventfd, submits a FENCE with IRQ
 * and waits for the interrupt on its own eventfd; then checks that the
 * server exits 0 on client disconnect and on SIGTERM.
 *
 * usage: test_server PATH/TO/weft-model-server
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "weft_regs.h"
#include "weft_cs_regs.h"

#define CMD(op, len)	WEFT_CMD_HEADER((uint32_t)(op), (uint32_t)(len))

static const char *server_bin;
static char dir[64], sock_path[128], mem_path[128];

struct server {
	pid_t pid;
	FILE *out;
};

static int start_server(struct server *s)
{
	int p[2];
	char line[64];

	if (pipe(p))
		return -1;
	s->pid = fork();
	if (!s->pid) {
		dup2(p[1], 1);
		close(p[0]);
		execl(server_bin, server_bin, "--socket", sock_path, "--guest-mem", mem_path,
		      "--threads", "2", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	s->out = fdopen(p[0], "r");
	if (!fgets(line, sizeof(line), s->out) || strcmp(line, "ready\n")) {
		CHECK(0, "server did not print ready (got '%s')", line);
		return -1;
	}
	return 0;
}

static int wait_exit(struct server *s, int timeout_ms)
{
	int st;

	for (int i = 0; i < timeout_ms; i++) {
		pid_t r = waitpid(s->pid, &st, WNOHANG);

		if (r == s->pid) {
			fclose(s->out);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(1000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	fclose(s->out);
	return -1;
}

static int recv_msg(int sock, int64_t *v, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { v, sizeof(*v) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;

	*fd = -1;
	if (recvmsg(sock, &msg, 0) != sizeof(*v))
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

static volatile uint32_t *R;

static uint32_t rd(uint32_t off)
{
	return __atomic_load_n(&R[off / 4], __ATOMIC_ACQUIRE);
}

static void wr(uint32_t off, uint32_t v)
{
	__atomic_store_n(&R[off / 4], v, __ATOMIC_RELEASE);
}

static void ring_doorbell(int fd)
{
	uint64_t one = 1;

	CHECK(write(fd, &one, 8) == 8, "doorbell write");
}

static int wait_reg(uint32_t off, uint32_t v)
{
	for (int i = 0; i < 5000; i++) {
		if (rd(off) == v)
			return 0;
		usleep(1000);
	}
	return -1;
}

static int late_mem;

static void make_mem(void)
{
	int fd = open(mem_path, O_RDWR | O_CREAT, 0600);

	if (fd < 0 || ftruncate(fd, 1 << 20))
		CHECK(0, "cannot create %s", mem_path);
	close(fd);
}

static void t_protocol(void)
{
	struct server s;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int sock, fd, shm = -1, peer_fd = -1, my_fd = -1;
	int64_t v, my_id = -1, peer_id = -1;
	uint8_t *mem;
	struct pollfd pfd;
	uint64_t cnt;

	if (late_mem)
		unlink(mem_path);
	if (start_server(&s))
		return;
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(a.sun_path, sock_path);
	if (connect(sock, (struct sockaddr *)&a, sizeof(a))) {
		CHECK(0, "connect: %s", strerror(errno));
		kill(s.pid, SIGKILL);
		wait_exit(&s, 1000);
		return;
	}
	/* 1. version 0, 2. our id, 3. -1 with the shm fd, 4. peers, 5. our own vectors. */
	CHECK(!recv_msg(sock, &v, &fd) && v == 0 && fd < 0, "protocol version message");
	CHECK(!recv_msg(sock, &my_id, &fd) && my_id >= 0 && my_id < 65536 && fd < 0, "client id");
	CHECK(!recv_msg(sock, &v, &shm) && v == -1 && shm >= 0, "shm fd message");
	CHECK(!recv_msg(sock, &peer_id, &peer_fd) && peer_id != my_id && peer_fd >= 0, "peer message");
	CHECK(!recv_msg(sock, &v, &my_fd) && v == my_id && my_fd >= 0, "interrupt setup message");
	if (h_failed())
		goto out;
	{
		struct stat st;

		fstat(shm, &st);
		CHECK_EQ(st.st_size, WEFT_REGS_SIZE);
	}
	R = mmap(NULL, WEFT_REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
	/* Like QEMU: the RAM file may appear only after the chardev connected. */
	if (late_mem)
		make_mem();
	fd = open(mem_path, O_RDWR);
	mem = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	CHECK_EQ(rd(WEFT_REG_SIGNATURE), WEFT_SIGNATURE);
	CHECK_EQ(rd(WEFT_REG_DOORBELL_PEER), peer_id);
	CHECK_EQ(rd(WEFT_REG_NUM_CORES), 2);
	/* Handshake through the doorbell (QEMU writes the peer's eventfd). */
	wr(WEFT_REG_DRIVER_READY, WEFT_DRIVER_READY);
	ring_doorbell(peer_fd);
	CHECK(!wait_reg(WEFT_REG_DEVICE_STATUS, WEFT_DEVICE_RUNNING), "device did not start");
	/* A ring at GPA 0x10000 with a FENCE + IRQ writing GPA 0x20000. */
	{
		uint32_t *ring = (uint32_t *)(mem + 0x10000);
		uint32_t cmds[] = { CMD(WEFT_CMD_FENCE, 6), 0x20000, 0, 0xfeed, 0,
				    WEFT_FENCE_FLAG_IRQ };

		memcpy(ring, cmds, sizeof(cmds));
		wr(WEFT_QUEUE_REG(0, WEFT_Q_RING_BASE_LO), 0x10000);
		wr(WEFT_QUEUE_REG(0, WEFT_Q_RING_SIZE), 4096);
		wr(WEFT_QUEUE_REG(0, WEFT_Q_ENABLE), 1);
		wr(WEFT_QUEUE_REG(0, WEFT_Q_TAIL), rd(WEFT_QUEUE_REG(0, WEFT_Q_HEAD)) + 6);
		ring_doorbell(peer_fd);
	}
	pfd = (struct pollfd){ .fd = my_fd, .events = POLLIN };
	CHECK(poll(&pfd, 1, 5000) == 1, "no interrupt");
	CHECK(read(my_fd, &cnt, 8) == 8 && cnt == 1, "interrupt count");
	CHECK_EQ(rd(WEFT_REG_IRQ_SEQ), 1);
	CHECK_EQ(*(volatile uint64_t *)(mem + 0x20000), 0xfeed);
	munmap((void *)R, WEFT_REGS_SIZE);
	munmap(mem, 1 << 20);
out:
	/* The client goes away: the server exits 0. */
	close(sock);
	CHECK_EQ(wait_exit(&s, 5000), 0);
	close(shm);
	close(peer_fd);
	close(my_fd);
}

static void t_sigterm(void)
{
	struct server s;

	if (start_server(&s))
		return;
	kill(s.pid, SIGTERM);
	CHECK_EQ(wait_exit(&s, 5000), 0);
	CHECK(access(sock_path, F_OK) != 0, "socket left behind");
}

static void t_usage(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(server_bin, server_bin, "--socket", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2, "bad usage exits 2");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_server WEFT-MODEL-SERVER\n");
		return 2;
	}
	server_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	strcpy(dir, "/tmp/weft-server-test-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sock_path, sizeof(sock_path), "%s/sock", dir);
	snprintf(mem_path, sizeof(mem_path), "%s/mem", dir);
	make_mem();
	h_run("server: ivshmem protocol, handshake, doorbell, interrupt, exit on disconnect",
	      t_protocol);
	late_mem = 1;
	h_run("server: guest RAM file created after QEMU connected", t_protocol);
	h_run("server: SIGTERM exits 0 and removes the socket", t_sigterm);
	h_run("server: usage error", t_usage);
	unlink(mem_path);
	rmdir(dir);
	return h_summary();
}
