/*
 * simbox: runs the buzzer box firmware cycle-accurately in simavr (1.6, Debian) for the tests.
 *
 *   simbox ELF [--freq HZ] [--mcu NAME] [--script FILE|-] [--until CYCLE] [--pty] [--pty-now] [--quiet]
 *              [--watch ADDR]...
 *
 * Batch mode (the default) runs as fast as the host allows and prints, on stdout,
 *   tx <cycle> <hexbyte>     every byte the firmware writes to UDR0 (cycle of the write)
 *   rx <cycle> <hexbyte>     every byte the host sent, at the end of its stop bit (readable then)
 *   overrun <cycle>          a byte ended while two were unread: the chip would lose it (DOR0)
 *   reset <cycle>            the firmware reset itself (watchdog); cycles keep counting
 *   done <cycle>             the end of the run
 * --pty mode runs in real time behind a pseudo-terminal (printed as `pty <path>`), which pyserial
 * opens like /dev/ttyUSB0, and reads script lines from stdin as they come.
 *
 * Script lines: `<cycle> <command> ...`, `#` comments. Cycles count from the power-on reset.
 *   pin <PORT><bit> <0|1>        drive an input pin from outside (a button: 0 pressed, 1 released)
 *   send <hex bytes...>          bytes on the host-to-board line, from that cycle on, at the line's pace
 *   poke <hexaddr> <hex bytes>   write SRAM (avr-nm address, with or without the 0x800000 offset)
 *   end                          stop the run
 * In --pty mode a cycle may also be `+N` (N cycles from now), and `now` prints `now <cycle>`.
 *
 * What the times mean:
 * - A command takes effect at the first instruction boundary at or after its cycle (an
 *   instruction is not divisible: up to 3 cycles later), always the same one for the same run.
 *   Commands of one cycle take effect together: pin edges given one cycle are simultaneous.
 * - `send`: the first start bit at that cycle, then back to back at the baud rate the firmware
 *   set (10 bits a byte at 8N1); each byte is readable (RXC0) at the end of its stop bit. Bytes
 *   wait while the receiver is off (before RXEN0) or simavr's FIFO is full (XOFF); a byte that
 *   comes while three are unread is lost with DOR0 set, as on the chip (an `overrun` line).
 * - A watchdog reset restarts the firmware; cycles keep counting from power-on.
 * - --pty: like an Arduino's auto-reset, the board starts when the host opens the port and flushes
 *   its input (pyserial does both in open), or 100 ms after the open; --pty-now starts at once.
 *   Simulated time follows the wall clock (never ahead of it). Run ends on stdin EOF, SIGTERM or
 *   SIGINT (exit 0).
 * Exit status: 0, 1 if the firmware crashed or halted, 2 for bad arguments or script lines.
 *
 * The simavr behaviour this file works around is written down in /work/shared/notes/simavr.md
 * and in the comments below; the numbers (pitfall N) refer to that note.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "sim_cycle_timers.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "avr_extint.h"

/* ------------------------------------------------------------------------------------------------ */
/* Small helpers */

static int quiet;
#define MAX_WATCH 8
static uint16_t watch[MAX_WATCH];
static int nwatch;

static void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die_usage(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("simbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	fputs("simbox: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("simbox: out of memory\n", stderr);
		exit(1);
	}
	return q;
}

static uint64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* simavr logs through one global logger; the default one prints some levels on stdout, which is
 * our protocol channel. Everything goes to stderr (errors always, the rest unless --quiet). */
static void stderr_logger(avr_t *avr, const int level, const char *format, va_list ap)
{
	if (avr && avr->log < level)
		return;
	if (quiet && level > LOG_ERROR)
		return;
	vfprintf(stderr, format, ap);
}

/* ------------------------------------------------------------------------------------------------ */
/* Global state (one simulated board per process) */

static avr_t *avr;
/* instructions run back to back between returns to our loop (see configure_peripherals): long
 * in batch mode for speed, short in pty mode so the simulation never runs ahead of the clock */
static avr_cycle_count_t run_cycle_limit = 4096;
static uint32_t freq = 16000000;
static int pty_mode;

/* avr_reset() (a watchdog reset) sets avr->cycle back to 0 and drops every cycle timer: the
 * absolute cycle since power-on is cycle_base + avr->cycle, and our timers are re-armed. */
static uint64_t cycle_base;
static inline uint64_t now_abs(void) { return cycle_base + avr->cycle; }

/* --watch: a firmware access to a watched I/O address (simavr raises the same IRQ for reads and
 * writes), with the cycle it happened at. */
static void on_watched_write(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	if (!pty_mode)
		printf("io %llu %x %x\n", (unsigned long long)now_abs(), (unsigned)(uintptr_t)param, value & 0xff);
}

static volatile sig_atomic_t stop_signal;
static int stop_requested;

/* --- the script: events sorted by (cycle, order of appearance) --- */
enum { EV_PIN, EV_SEND, EV_POKE, EV_END };
typedef struct {
	uint64_t cycle;
	uint64_t seq;
	int kind;
	char port;
	uint8_t bit, level;
	uint32_t addr;
	uint32_t len;
	uint8_t *data;
} event_t;

static event_t *evs;
static size_t nev, evcap, next_ev;
static uint64_t ev_seq;
static int script_armed;

/* --- driven pins: we keep AVR_IOCTL_IOPORT_SET_EXTERNAL in step with every level we drive, or a
 * firmware write to PORTx re-applies the pull-up and silently releases the button (pitfall 6) --- */
typedef struct {
	avr_ioport_t *io;
	uint8_t mask, value;
} port_t;
static port_t ports[26];

/* --- UART0 --- */
static avr_uart_t *uart;
static avr_irq_t *uart_in_irq;

typedef struct {
	uint8_t byte;
	uint64_t earliest; /* absolute cycle before which its start bit may not begin */
} rxbyte_t;
static rxbyte_t *rxq;
static size_t rxq_head, rxq_len, rxq_cap;
static int line_open;       /* UART XON seen (receiver enabled, room) and no XOFF since */
static int feed_scheduled;  /* feed_timer is registered */
static int in_feed;         /* inside feed_timer: it reschedules itself by its return value */
static uint64_t line_free_at; /* absolute cycle when the last byte's stop bit ended */
static uint64_t feed_end;     /* absolute cycle when the byte being received ends */
static int feed_at_start;     /* feed_timer's next call is the byte's start bit, not its end */
static int overrun_pending; /* a byte the chip lost is still in simavr's FIFO */
static uint64_t tx_written_at; /* the cycle of the firmware's last write to UDR0 */
static avr_cycle_timer_t rxc_pump; /* simavr's static avr_uart_rxc_raise, found at run time */
static int rxc_pump_missing;
static uint64_t rx_bytes, tx_bytes, rx_overruns;

/* --- pty mode --- */
static int pty_master = -1;
static uint8_t *txbuf;
static size_t txlen, txcap;
static uint64_t tx_dropped;

/* ------------------------------------------------------------------------------------------------ */
/* Script parsing */

static int parse_u64(const char *s, int base, uint64_t *out)
{
	if (!*s)
		return -1;
	if (base == 16 && (s[0] == '0') && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	for (const char *p = s; *p; p++) {
		int d;
		if (*p == '_')
			continue;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int parse_hex_bytes(char **tok, int ntok, uint8_t **data, uint32_t *len, char *err, size_t errlen)
{
	*data = xrealloc(NULL, (size_t)ntok);
	for (int i = 0; i < ntok; i++) {
		uint64_t v;
		if (strlen(tok[i]) > 4 || parse_u64(tok[i], 16, &v) || v > 0xff) {
			snprintf(err, errlen, "bad hex byte '%s'", tok[i]);
			free(*data);
			*data = NULL;
			return -1;
		}
		(*data)[i] = (uint8_t)v;
	}
	*len = (uint32_t)ntok;
	return 0;
}

/*
 * Parses one script line into *ev. Returns 1 for an event, 0 for a blank/comment line, 2 for `now`
 * (live mode only), -1 on error (message in err). `live` allows `+N` cycles relative to `now`.
 */
static int parse_line(char *line, int live, uint64_t now, event_t *ev, char *err, size_t errlen)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	static char **tok;
	static int tokcap;
	int ntok = 0;
	for (char *s = strtok(line, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
		if (ntok == tokcap) {
			tokcap = tokcap ? tokcap * 2 : 64;
			tok = xrealloc(tok, (size_t)tokcap * sizeof(*tok));
		}
		tok[ntok++] = s;
	}
	if (ntok == 0)
		return 0;
	if (live && ntok == 1 && !strcmp(tok[0], "now"))
		return 2;
	if (ntok < 2) {
		snprintf(err, errlen, "expected '<cycle> <command> ...'");
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	uint64_t c;
	if (tok[0][0] == '+') {
		if (!live) {
			snprintf(err, errlen, "relative cycle '%s' only in --pty mode", tok[0]);
			return -1;
		}
		if (parse_u64(tok[0] + 1, 10, &c) || c > UINT64_MAX - now) {
			snprintf(err, errlen, "bad cycle '%s'", tok[0]);
			return -1;
		}
		c += now;
	} else if (parse_u64(tok[0], 10, &c)) {
		snprintf(err, errlen, "bad cycle '%s'", tok[0]);
		return -1;
	}
	ev->cycle = c;
	const char *cmd = tok[1];
	if (!strcmp(cmd, "pin")) {
		if (ntok != 4) {
			snprintf(err, errlen, "usage: <cycle> pin <PORT><bit> <0|1>");
			return -1;
		}
		const char *p = tok[2];
		char port = (char)(p[0] >= 'a' && p[0] <= 'z' ? p[0] - 32 : p[0]);
		if (port < 'A' || port > 'Z' || p[1] < '0' || p[1] > '7' || p[2]) {
			snprintf(err, errlen, "bad pin '%s' (expected e.g. D2)", p);
			return -1;
		}
		if (strcmp(tok[3], "0") && strcmp(tok[3], "1")) {
			snprintf(err, errlen, "bad pin level '%s' (0 or 1)", tok[3]);
			return -1;
		}
		ev->kind = EV_PIN;
		ev->port = port;
		ev->bit = (uint8_t)(p[1] - '0');
		ev->level = (uint8_t)(tok[3][0] - '0');
	} else if (!strcmp(cmd, "send")) {
		if (ntok < 3) {
			snprintf(err, errlen, "usage: <cycle> send <hex bytes...>");
			return -1;
		}
		ev->kind = EV_SEND;
		if (parse_hex_bytes(tok + 2, ntok - 2, &ev->data, &ev->len, err, errlen))
			return -1;
	} else if (!strcmp(cmd, "poke")) {
		uint64_t a;
		if (ntok < 4) {
			snprintf(err, errlen, "usage: <cycle> poke <hexaddr> <hex bytes...>");
			return -1;
		}
		if (parse_u64(tok[2], 16, &a)) {
			snprintf(err, errlen, "bad address '%s'", tok[2]);
			return -1;
		}
		if (a >= 0x800000 && a < 0x810000)
			a -= 0x800000; /* avr-nm prints data addresses with the linker's 0x800000 offset */
		if (a > 0xffff) {
			snprintf(err, errlen, "address '%s' is not in the data space", tok[2]);
			return -1;
		}
		ev->kind = EV_POKE;
		ev->addr = (uint32_t)a;
		if (parse_hex_bytes(tok + 3, ntok - 3, &ev->data, &ev->len, err, errlen))
			return -1;
	} else if (!strcmp(cmd, "end")) {
		if (ntok != 2) {
			snprintf(err, errlen, "usage: <cycle> end");
			return -1;
		}
		ev->kind = EV_END;
	} else {
		snprintf(err, errlen, "unknown command '%s' (pin, send, poke, end%s)", cmd, live ? ", now" : "");
		return -1;
	}
	return 1;
}

/* Checks what needs the simulated MCU (does the port exist, is the address SRAM). */
static int validate_event(const event_t *ev, char *err, size_t errlen)
{
	if (ev->kind == EV_PIN && !ports[ev->port - 'A'].io) {
		snprintf(err, errlen, "%s has no port %c", avr->mmcu, ev->port);
		return -1;
	}
	if (ev->kind == EV_POKE) {
		if (ev->addr <= avr->ioend || (uint64_t)ev->addr + ev->len > (uint64_t)avr->ramend + 1) {
			snprintf(err, errlen, "poke 0x%x+%u is outside SRAM (0x%x-0x%x)", ev->addr, ev->len,
					 avr->ioend + 1, avr->ramend);
			return -1;
		}
	}
	return 0;
}

static int ev_cmp(const void *a, const void *b)
{
	const event_t *x = a, *y = b;
	if (x->cycle != y->cycle)
		return x->cycle < y->cycle ? -1 : 1;
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static void add_event(event_t *ev)
{
	ev->seq = ev_seq++;
	if (nev == evcap) {
		evcap = evcap ? evcap * 2 : 64;
		evs = xrealloc(evs, evcap * sizeof(*evs));
	}
	/* keep [next_ev, nev) sorted: insertion from the end (script files are sorted once at load) */
	size_t i = nev++;
	while (i > next_ev && ev_cmp(&evs[i - 1], ev) > 0) {
		evs[i] = evs[i - 1];
		i--;
	}
	evs[i] = *ev;
}

static void load_script(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f)
		die_usage("cannot open script %s: %s", path, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		event_t ev;
		char err[200];
		int r = parse_line(line, 0, 0, &ev, err, sizeof(err));
		if (r < 0 || (r == 1 && validate_event(&ev, err, sizeof(err))))
			die_usage("%s:%u: %s", path, lineno, err);
		if (r == 1)
			add_event(&ev);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	qsort(evs, nev, sizeof(*evs), ev_cmp);
}

/* ------------------------------------------------------------------------------------------------ */
/* Pins */

static void drive_pin(char name, uint8_t bit, uint8_t level)
{
	port_t *p = &ports[name - 'A'];
	uint8_t m = (uint8_t)(1u << bit);
	p->mask |= m;
	p->value = (uint8_t)(level ? (p->value | m) : (p->value & ~m));
	/* value is only meaningful under mask: simavr ORs it unmasked into the PIN_ALL IRQ */
	avr_ioport_external_t e = {.name = (unsigned)name, .mask = p->mask, .value = p->value & p->mask};
	avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(name), &e);
	/* the pin IRQ sets the PIN bit and raises PCINT/INTn; it is filtered (no change, no edge) */
	avr_raise_irq(p->io->io.irq + bit, level);
}

/* ------------------------------------------------------------------------------------------------ */
/* UART0 receive: bytes on the line at its real pace, through simavr's receiver */

/* One frame on the wire: simavr counts 1+data+1(parity, always)+stop bits per byte for its own
 * pace (cycles_per_byte, 11 bits at 8N1); the real line carries a parity bit only when enabled. */
static uint64_t frame_cycles(void)
{
	avr_t *a = avr;
	int db_tab[8] = {5, 6, 7, 8, 8, 8, 8, 9};
	int db = db_tab[avr_regbit_get(a, uart->ucsz) | (avr_regbit_get(a, uart->ucsz2) << 2)];
	int sb = 1 + avr_regbit_get(a, uart->usbs);
	int parity = uart->r_ucsrc ? ((a->data[uart->r_ucsrc] >> 4) & 3) != 0 : 0;
	uint64_t sim_ws = (uint64_t)(1 + db + 1 + sb);
	uint64_t real_ws = (uint64_t)(1 + db + parity + sb);
	uint64_t cpb = uart->cycles_per_byte ? uart->cycles_per_byte : 1;
	uint64_t f = cpb * real_ws / sim_ws;
	return f ? f : 1;
}

static inline int uart_rx_empty(void) { return uart->input.read == uart->input.write; }

static void rxq_push(uint8_t b, uint64_t earliest)
{
	if (rxq_len == rxq_cap) {
		size_t ncap = rxq_cap ? rxq_cap * 2 : 256;
		rxbyte_t *n = xrealloc(NULL, ncap * sizeof(*n));
		for (size_t i = 0; i < rxq_len; i++)
			n[i] = rxq[(rxq_head + i) % (rxq_cap ? rxq_cap : 1)];
		free(rxq);
		rxq = n;
		rxq_cap = ncap;
		rxq_head = 0;
	}
	rxq[(rxq_head + rxq_len) % rxq_cap] = (rxbyte_t){b, earliest};
	rxq_len++;
}

/* The absolute cycle at which the next queued byte's stop bit ends: its start bit follows the
 * previous stop bit, or begins when it was sent, or (floor) when the receiver let it in. */
static uint64_t next_byte_end(uint64_t floor)
{
	uint64_t start = rxq[rxq_head].earliest;
	if (start < line_free_at)
		start = line_free_at;
	if (start < floor)
		start = floor;
	return start + frame_cycles();
}

/*
 * simavr makes a byte fed into an empty receiver readable one (11-bit) byte time later, and when
 * the next byte arrives while the previous one is unread, lets the firmware read both at once.
 * Neither is the line's timing, so a byte is fed at the end of its stop bit and, if the receiver
 * was empty, simavr's receive pump (avr_uart_rxc_raise, a static function we find in the timer
 * list the first time it is armed) is moved to fire now: RXC0 rises at the cycle the real
 * receiver would raise it. A byte arriving while the previous one is unread becomes readable as
 * soon as that one is read, as with the chip's two-byte buffer.
 */
static void feed_one(void)
{
	int lost = overrun_pending && !uart_rx_empty();
	if (lost)
		uart->input.write = (uart->input.write - 1) & (uart_fifo_fifo_size - 1);
	overrun_pending = 0;
	rxbyte_t b = rxq[rxq_head];
	rxq_head = (rxq_head + 1) % rxq_cap;
	rxq_len--;
	int was_empty = uart_rx_empty();
	avr_cycle_timer_t before[MAX_CYCLE_TIMERS];
	int nbefore = 0;
	if (was_empty && !rxc_pump) {
		for (avr_cycle_timer_slot_p t = avr->cycle_timers.timer; t; t = t->next)
			if (t->param == uart && nbefore < MAX_CYCLE_TIMERS)
				before[nbefore++] = t->timer;
	}
	avr_raise_irq(uart_in_irq, b.byte);
	if (lost)
		avr_regbit_set(avr, uart->dor);
	rx_bytes++;
	if (!pty_mode)
		printf("rx %" PRIu64 " %02x\n", now_abs(), b.byte);
	if (!was_empty)
		return;
	if (!rxc_pump && !rxc_pump_missing) {
		for (avr_cycle_timer_slot_p t = avr->cycle_timers.timer; t && !rxc_pump; t = t->next) {
			if (t->param != uart)
				continue;
			int seen = 0;
			for (int i = 0; i < nbefore; i++)
				seen |= before[i] == t->timer;
			if (!seen)
				rxc_pump = t->timer;
		}
		if (!rxc_pump) {
			rxc_pump_missing = 1;
			note("warning: simavr's UART receive pump not found; received bytes become readable "
				 "one simavr byte time late");
		}
	}
	if (rxc_pump)
		avr_cycle_timer_register(avr, 0, rxc_pump, uart);
}

/*
 * The chip holds two received bytes (UDR0's FIFO) and a third in its shift register; when the
 * next start bit comes while all three are unread, the one in the shift register is lost and
 * DOR0 set. simavr keeps 63 bytes and never loses one; this harness loses it as the chip does,
 * and says so: an `overrun` line at that start bit.
 */
static void check_overrun(void)
{
	unsigned unread = (unsigned)(uart->input.write - uart->input.read) & (uart_fifo_fifo_size - 1);
	if (unread < 3)
		return;
	/* as the chip: the byte in the shift register (the newest unread one) is lost, and DOR0 says
	 * so until UDR0 is read (otherwise a firmware that fell behind would work through a backlog
	 * no chip can hold, late); both happen when the next byte comes in (feed_one), whatever order
	 * simavr runs this cycle's timers in, and after it (simavr refuses bytes while DOR0 is set) */
	overrun_pending = 1;
	rx_overruns++;
	if (!pty_mode)
		printf("overrun %" PRIu64 "\n", now_abs());
}

/* Two phases per byte: its start bit (feed_start), then the end of its stop bit (feed_end). */
static avr_cycle_count_t feed_timer(avr_t *a, avr_cycle_count_t when, void *param)
{
	(void)a;
	(void)when;
	(void)param;
	feed_scheduled = 0;
	if (!line_open || !rxq_len)
		return 0; /* XOFF: the byte waits for the next XON and a whole frame */
	if (feed_at_start) {
		feed_at_start = 0;
		check_overrun();
	} else {
		in_feed = 1;
		feed_one();
		line_free_at = feed_end; /* not now_abs(): instruction boundaries must not add up */
		in_feed = 0;
		if (!line_open || !rxq_len)
			return 0;
		feed_end = next_byte_end(0);
		if (feed_end - frame_cycles() <= now_abs()) {
			check_overrun(); /* back to back: the next start bit is now */
		} else {
			feed_at_start = 1;
		}
	}
	feed_scheduled = 1;
	uint64_t next = feed_at_start ? feed_end - frame_cycles() : feed_end;
	if (next <= now_abs())
		next = now_abs() + 1;
	/* a timer reschedules itself by returning an absolute (raw) cycle; registering itself from
	 * inside its callback would leave a duplicate (pitfall 8) */
	return (avr_cycle_count_t)(next - cycle_base);
}

static void schedule_feed(uint64_t floor)
{
	if (feed_scheduled || in_feed || !line_open || !rxq_len)
		return;
	uint64_t now = now_abs();
	feed_end = next_byte_end(floor);
	uint64_t start = feed_end - frame_cycles();
	feed_at_start = start > now;
	if (!feed_at_start)
		check_overrun();
	uint64_t next = feed_at_start ? start : feed_end;
	avr_cycle_timer_register(avr, next > now ? next - now : 0, feed_timer, NULL);
	feed_scheduled = 1;
}

/* simavr makes the next byte of its FIFO readable one (11-bit) byte time after the firmware reads
 * the one before, so a firmware that reads as fast as the line delivers looked too slow. The chip
 * holds two received bytes and a third in its shift register, each readable from the end of its
 * stop bit (where this harness feeds it): after a read of UDR0, a byte still waiting is readable at
 * once. So a read of UDR0 moves simavr's pending pump to now when bytes wait, and clears DOR0. */
static void on_udr_access(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)value;
	(void)param;
	if (tx_written_at == now_abs() && tx_bytes)
		return; /* the write: uart_tx_hook came first */
	avr_regbit_clear(avr, uart->dor);
	if (rxc_pump && !uart_rx_empty() && !avr_regbit_get(avr, uart->rxc.raised))
		avr_cycle_timer_register(avr, 0, rxc_pump, uart);
}

/* XON comes on every status read while the receiver is enabled and empty (so it must be cheap),
 * and when RXEN0 is set; XOFF(1) when simavr's 64-byte FIFO is full or RXEN0 is cleared. Bytes
 * fed while the receiver is disabled are dropped by simavr, so they wait here (pitfall 4). */
static void uart_xon_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	if (!value)
		return;
	int was_open = line_open;
	line_open = 1;
	if (rxq_len && !feed_scheduled && !in_feed)
		schedule_feed(was_open ? 0 : now_abs()); /* waiting bytes start when the receiver opens */
}

static void uart_xoff_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	if (value)
		line_open = 0;
}

/* UART_IRQ_OUTPUT fires when UDR0 is written, not when the frame leaves (pitfall 4). */
/*
 * simavr raises UDRE0 (and TXC0) one 11-bit byte time after every write to UDR0, as if the chip had
 * no transmit buffer: a firmware then loses a byte time on the line for every cycle it is late to
 * write the next byte. The chip moves a byte from UDR0 into its shift register as soon as that is
 * empty, and raises UDRE0 then: a byte written while the line is idle leaves at once and frees
 * UDR0 for the next, which leaves when the first has gone. So after each write this moves simavr's
 * pending transmit pump (avr_uart_txc_raise, found the first time it is armed) to the cycle UDR0 is
 * free again. TXC0 comes up with it, up to a byte early (the firmware only uses it to let a reply
 * leave before it resets).
 */
static avr_cycle_timer_t txc_pump;
static uint64_t tx_shift_free_at; /* when the transmitter's shift register is empty */

/* Run as a cycle timer right after the write: simavr arms its pump after telling us of the byte. */
static avr_cycle_count_t pace_transmitter(avr_t *a, avr_cycle_count_t when, void *param)
{
	(void)a;
	(void)when;
	(void)param;
	if (!txc_pump) {
		for (avr_cycle_timer_slot_p t = avr->cycle_timers.timer; t && !txc_pump; t = t->next)
			if (t->param == uart && t->timer != rxc_pump)
				txc_pump = t->timer;
		if (!txc_pump)
			return 0;
	}
	uint64_t now = now_abs();
	uint64_t written = tx_written_at;
	uint64_t starts = tx_shift_free_at > written ? tx_shift_free_at : written; /* UDR0 -> the line */
	tx_shift_free_at = starts + frame_cycles();
	avr_cycle_timer_register(avr, (avr_cycle_count_t)(starts > now ? starts - now : 0), txc_pump, uart);
	return 0;
}

static void uart_tx_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	tx_bytes++;
	tx_written_at = now_abs();
	avr_cycle_timer_register(avr, 0, pace_transmitter, NULL);
	if (!pty_mode) {
		printf("tx %" PRIu64 " %02x\n", now_abs(), value & 0xff);
		return;
	}
	if (txlen == txcap) {
		if (txcap >= (1u << 20)) { /* nobody reads the pty: a real USB bridge drops too */
			tx_dropped++;
			return;
		}
		txcap = txcap ? txcap * 2 : 4096;
		txbuf = xrealloc(txbuf, txcap);
	}
	txbuf[txlen++] = (uint8_t)value;
}

/* ------------------------------------------------------------------------------------------------ */
/* Script events at their cycle */

static void arm_script(void);

static void apply_event(const event_t *ev)
{
	switch (ev->kind) {
	case EV_PIN:
		drive_pin(ev->port, ev->bit, ev->level);
		break;
	case EV_SEND:
		for (uint32_t i = 0; i < ev->len; i++)
			rxq_push(ev->data[i], ev->cycle);
		schedule_feed(0);
		break;
	case EV_POKE:
		memcpy(avr->data + ev->addr, ev->data, ev->len);
		break;
	case EV_END:
		stop_requested = 1;
		break;
	}
}

/* Applies every event due (all those of one cycle at the same instruction boundary: edges given
 * the same cycle are simultaneous for the firmware) and returns the next one's raw cycle. */
static avr_cycle_count_t script_timer(avr_t *a, avr_cycle_count_t when, void *param)
{
	(void)a;
	(void)when;
	(void)param;
	uint64_t now = now_abs();
	while (next_ev < nev && evs[next_ev].cycle <= now) {
		event_t *ev = &evs[next_ev++];
		apply_event(ev);
		free(ev->data);
		ev->data = NULL;
	}
	if (next_ev == nev) {
		script_armed = 0;
		return 0;
	}
	return (avr_cycle_count_t)(evs[next_ev].cycle - cycle_base);
}

/* (Re-)registers the script timer for the earliest pending event (outside script_timer only). */
static void arm_script(void)
{
	if (next_ev == nev) {
		if (script_armed)
			avr_cycle_timer_cancel(avr, script_timer, NULL);
		script_armed = 0;
		return;
	}
	uint64_t now = now_abs();
	uint64_t at = evs[next_ev].cycle;
	avr_cycle_timer_register(avr, at > now ? at - now : 0, script_timer, NULL);
	script_armed = 1;
}

/* ------------------------------------------------------------------------------------------------ */
/* Set-up */

static void sleep_noop(avr_t *a, avr_cycle_count_t how_long)
{
	(void)a;
	(void)how_long;
}

static void configure_peripherals(void)
{
	/* pitfall 2: POLL_SLEEP sleeps 1 us of wall time per idle status poll, STDIO echoes output */
	uint32_t f = 0;
	avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &f);
	f &= ~(uint32_t)(AVR_UART_FLAG_POLL_SLEEP | AVR_UART_FLAG_STDIO);
	avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &f);
	/* pitfall 5: INT0/INT1 at the reset default (low level) are polled every cycle while low */
	avr_extint_set_strict_lvl_trig(avr, 0, 0);
	avr_extint_set_strict_lvl_trig(avr, 1, 0);
	/* avr_run_one() runs instructions back to back until the next cycle timer is due, an
	 * interrupt is pending or the MCU sleeps, but never more cycles than run_cycle_limit, which
	 * avr_reset() sets to 1 (one instruction per call, each followed by a walk of the timers).
	 * Timers still fire at the first instruction boundary at or after their cycle either way. */
	avr->run_cycle_limit = run_cycle_limit;
}

static void find_peripherals(void)
{
	for (avr_io_t *io = avr->io_port; io; io = io->next) {
		if (!io->kind)
			continue;
		if (!strcmp(io->kind, "port")) {
			avr_ioport_t *p = (avr_ioport_t *)io;
			if (p->name >= 'A' && p->name <= 'Z')
				ports[p->name - 'A'].io = p;
		} else if (!strcmp(io->kind, "uart") && ((avr_uart_t *)io)->name == '0') {
			uart = (avr_uart_t *)io;
		}
	}
	if (!uart) {
		fprintf(stderr, "simbox: %s has no UART0\n", avr->mmcu);
		exit(2);
	}
	uart_in_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
							uart_tx_hook, NULL);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
							uart_xon_hook, NULL);
	avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
							uart_xoff_hook, NULL);
	avr_irq_register_notify(avr_iomem_getirq(avr, uart->r_udr, NULL, AVR_IOMEM_IRQ_ALL), on_udr_access, NULL);
}

/* --- watchdog (or any) reset --- */
static void (*core_reset)(avr_t *);
static int reset_seen;
static uint64_t reset_raw_cycle;

static void reset_hook(avr_t *a)
{
	if (core_reset)
		core_reset(a);
	reset_seen = 1;
	reset_raw_cycle = a->cycle;
}

/*
 * After avr_reset(): the cycle counter restarted from 0, every cycle timer (ours included) is
 * gone, the UART receiver is disabled and flushed, and every I/O register is 0, PINx included,
 * while the pin IRQs keep their last level. Those IRQs are filtered, so the pull-ups the
 * firmware enables again would never bring PINx back to 1: PINx is rebuilt from the pin levels.
 */
static void handle_reset(void)
{
	reset_seen = 0;
	if (avr->cycle < reset_raw_cycle)
		cycle_base += reset_raw_cycle - avr->cycle;
	uint64_t now = now_abs();
	if (!pty_mode)
		printf("reset %" PRIu64 "\n", now);
	note("the firmware reset (watchdog) at cycle %" PRIu64, now);
	for (int i = 0; i < 26; i++) {
		avr_ioport_t *p = ports[i].io;
		if (!p)
			continue;
		uint8_t pin = 0;
		for (int b = 0; b < 8; b++)
			if (p->io.irq[b].value & 1)
				pin |= (uint8_t)(1u << b);
		avr->data[p->r_pin] = pin;
	}
	configure_peripherals();
	line_open = 0;
	feed_scheduled = 0;
	feed_at_start = 0;
	in_feed = 0;
	if (line_free_at > now)
		line_free_at = now;
	script_armed = 0;
	arm_script();
}

/* ------------------------------------------------------------------------------------------------ */
/* Running */

static void on_signal(int sig)
{
	(void)sig;
	stop_signal = 1;
}

static int check_state(void)
{
	int st = avr->state;
	if (st == cpu_Crashed || st == cpu_Stopped) {
		fflush(stdout);
		fprintf(stderr, "simbox: the firmware crashed at cycle %" PRIu64 ", PC 0x%04x (word 0x%04x)\n",
				now_abs(), (unsigned)avr->pc, (unsigned)avr->pc / 2);
		return 1;
	}
	if (st == cpu_Done) {
		fflush(stdout);
		fprintf(stderr, "simbox: the firmware stopped (sleep with interrupts off) at cycle %" PRIu64
				", PC 0x%04x\n", now_abs(), (unsigned)avr->pc);
		return 1;
	}
	return 0;
}

static int run_batch(void)
{
	uint64_t t0 = mono_ns();
	unsigned n = 0;
	while (!stop_requested && !stop_signal) {
		avr_run(avr);
		if (avr->state != cpu_Running) {
			if (check_state())
				return 1;
		}
		if (reset_seen)
			handle_reset();
		if (!(++n & 0x3fffff))
			fflush(stdout);
	}
	uint64_t dt = mono_ns() - t0;
	uint64_t c = now_abs();
	printf("done %" PRIu64 "\n", c);
	fflush(stdout);
	double secs = (double)dt / 1e9;
	note("%" PRIu64 " cycles in %.3f s wall: %.1f Mcycles/s, %.1fx real time; %" PRIu64
		 " bytes sent by the firmware, %" PRIu64 " fed to it (%" PRIu64 " the chip would overrun)",
		 c, secs, secs > 0 ? (double)c / secs / 1e6 : 0.0, secs > 0 ? (double)c / freq / secs : 0.0,
		 tx_bytes, rx_bytes, rx_overruns);
	return 0;
}

/* --- pty mode --- */

static int open_pty(char *path, size_t len)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (m < 0 || grantpt(m) || unlockpt(m)) {
		fprintf(stderr, "simbox: cannot create a pty: %s\n", strerror(errno));
		exit(1);
	}
	const char *s = ptsname(m);
	if (!s) {
		fprintf(stderr, "simbox: ptsname: %s\n", strerror(errno));
		exit(1);
	}
	snprintf(path, len, "%s", s);
	/* raw, like a USB serial adapter: no echo, no line editing, 8 bits through */
	struct termios tio;
	if (tcgetattr(m, &tio) == 0) {
		cfmakeraw(&tio);
		cfsetispeed(&tio, B1000000);
		cfsetospeed(&tio, B1000000);
		tcsetattr(m, TCSANOW, &tio);
	}
	/* Packet mode: the host's tcflush(TCIFLUSH), which pyserial does in open(), reaches us as a
	 * TIOCPKT_FLUSHREAD status byte, so the board can start only once the host listens. */
	int one = 1;
	ioctl(m, TIOCPKT, &one);
	/* A slave opened and closed once makes the master report POLLHUP until the host opens it. */
	int s_fd = open(path, O_RDWR | O_NOCTTY);
	if (s_fd >= 0)
		close(s_fd);
	return m;
}

/* Reads what the host wrote. Returns 1 if a TIOCPKT_FLUSHREAD status came. */
static int pty_read(void)
{
	uint8_t buf[4097];
	int flushed = 0;
	for (;;) {
		ssize_t n = read(pty_master, buf, sizeof(buf));
		if (n <= 0)
			break; /* EAGAIN, or EIO while no one has the slave open */
		if (buf[0] == TIOCPKT_DATA) {
			uint64_t now = now_abs();
			for (ssize_t i = 1; i < n; i++)
				rxq_push(buf[i], now);
		} else if (buf[0] & TIOCPKT_FLUSHREAD) {
			flushed = 1;
		}
	}
	schedule_feed(0);
	return flushed;
}

static void pty_write(void)
{
	size_t off = 0;
	while (off < txlen) {
		ssize_t n = write(pty_master, txbuf + off, txlen - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (off) {
		memmove(txbuf, txbuf + off, txlen - off);
		txlen -= off;
	}
}

static char *inbuf;
static size_t inlen, incap;
static int stdin_eof;

/* Reads script lines from stdin as they come (non-blocking). */
static void stdin_read(void)
{
	/* one read per call: a flood on stdin must not starve the simulation */
	if (incap - inlen < 65536) {
		if (incap >= (64u << 20)) {
			fprintf(stderr, "simbox: stdin: line too long, dropped\n");
			inlen = 0;
		} else {
			incap = incap ? incap * 2 : 131072;
			inbuf = xrealloc(inbuf, incap);
		}
	}
	ssize_t n = read(0, inbuf + inlen, incap - inlen - 1);
	if (n == 0) {
		stdin_eof = 1;
		if (inlen && inbuf[inlen - 1] != '\n')
			inbuf[inlen++] = '\n'; /* a last line without its newline still counts */
	} else if (n > 0) {
		inlen += (size_t)n;
	}
	int changed = 0;
	char *start = inbuf;
	char *nl;
	while (inlen && (nl = memchr(start, '\n', inlen - (size_t)(start - inbuf)))) {
		*nl = 0;
		event_t ev;
		char err[200];
		int r = parse_line(start, 1, now_abs(), &ev, err, sizeof(err));
		if (r == 2) {
			printf("now %" PRIu64 "\n", now_abs());
			fflush(stdout);
		} else if (r < 0 || (r == 1 && validate_event(&ev, err, sizeof(err)))) {
			fprintf(stderr, "simbox: stdin: %s\n", err);
			if (r == 1)
				free(ev.data);
		} else if (r == 1) {
			add_event(&ev);
			changed = 1;
		}
		start = nl + 1;
	}
	size_t used = (size_t)(start - inbuf);
	memmove(inbuf, start, inlen - used);
	inlen -= used;
	if (changed)
		arm_script();
}

static int run_pty(int start_now)
{
	char path[256];
	pty_master = open_pty(path, sizeof(path));
	int stdin_flags = fcntl(0, F_GETFL);
	fcntl(0, F_SETFL, stdin_flags | O_NONBLOCK);
	printf("pty %s\n", path);
	fflush(stdout);

	/* Like an Arduino, whose auto-reset restarts it when the port is opened, the board starts
	 * when the host has opened the port and flushed its input (or 100 ms after the open). */
	uint64_t opened_at = 0;
	while (!start_now && !stop_signal && !stdin_eof && !stop_requested) {
		struct pollfd fds[2] = {{pty_master, POLLIN, 0}, {0, POLLIN, 0}};
		poll(fds, 2, 1);
		if (fds[1].revents)
			stdin_read();
		int flushed = 0;
		if (fds[0].revents & POLLIN)
			flushed = pty_read();
		if (fds[0].revents & POLLHUP) {
			/* not open yet: HUP is level-triggered, poll would return at once */
			struct timespec ms1 = {0, 1000000};
			nanosleep(&ms1, NULL);
		} else if (!opened_at) {
			opened_at = mono_ns();
		}
		if (flushed || (opened_at && mono_ns() - opened_at > 100000000ull))
			break;
	}

	const uint64_t slice = freq / 1000 ? freq / 1000 : 1; /* at most 1 ms of simulated time */
	run_cycle_limit = freq / 62500 > 16 ? freq / 62500 : 16; /* 16 us */
	avr->run_cycle_limit = run_cycle_limit;
	const uint64_t t0 = mono_ns();
	int64_t max_lag_ns = 0, max_lead_ns = 0;
	double lag_sum = 0;
	uint64_t lag_n = 0, lag_over_1ms = 0;
	int rc = 0;
	while (!stop_signal && !stdin_eof && !stop_requested) {
		uint64_t wall = mono_ns() - t0;
		uint64_t target = (uint64_t)((unsigned __int128)wall * freq / 1000000000ull);
		uint64_t now = now_abs();
		if (target > now) {
			if (target - now > slice)
				target = now + slice;
			while (now_abs() < target && !stop_requested) {
				avr_run(avr);
				if (avr->state != cpu_Running && check_state()) {
					rc = 1;
					goto out;
				}
				if (reset_seen)
					handle_reset();
			}
		}
		if (txlen)
			pty_write();
		/* pacing statistics: simulated time minus wall time, after the slice */
		int64_t d = (int64_t)((unsigned __int128)now_abs() * 1000000000ull / freq) - (int64_t)(mono_ns() - t0);
		if (d > max_lead_ns)
			max_lead_ns = d;
		if (-d > max_lag_ns)
			max_lag_ns = -d;
		lag_sum += (double)d;
		lag_n++;
		lag_over_1ms += d < -1000000;
		/* wait until the wall clock is 250 us ahead (4000 cycles), or input comes */
		struct pollfd fds[2] = {{pty_master, POLLIN, 0}, {0, POLLIN, 0}};
		int64_t wait_ns = d + 250000;
		struct timespec ts = {0, wait_ns > 0 ? wait_ns : 0};
		int r = ppoll(fds, 2, &ts, NULL);
		if (r > 0) {
			if (fds[0].revents & POLLIN)
				pty_read();
			if (fds[1].revents)
				stdin_read();
		}
		if (fds[0].revents & POLLHUP) {
			/* nobody has the port open: don't spin on the level-triggered HUP */
			struct timespec hup = {0, wait_ns > 0 ? wait_ns : 0};
			nanosleep(&hup, NULL);
		}
	}
out:
	if (stdin_flags >= 0)
		fcntl(0, F_SETFL, stdin_flags); /* stdin's file description may be a shared terminal */
	if (txlen)
		pty_write();
	printf("done %" PRIu64 "\n", now_abs());
	fflush(stdout);
	note("pty run: %" PRIu64 " cycles; simulated minus wall time: mean %.0f us, max lead %.0f us, "
		 "max lag %.0f us, lag over 1 ms in %" PRIu64 " of %" PRIu64 " checks; %" PRIu64
		 " bytes sent by the firmware (%" PRIu64 " dropped), %" PRIu64 " fed to it (%" PRIu64
		 " the chip would overrun)",
		 now_abs(), lag_n ? lag_sum / (double)lag_n / 1000.0 : 0.0, (double)max_lead_ns / 1000.0,
		 (double)max_lag_ns / 1000.0, lag_over_1ms, lag_n, tx_bytes, tx_dropped, rx_bytes, rx_overruns);
	return rc;
}

/* ------------------------------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("usage: simbox ELF [--freq HZ] [--mcu NAME] [--script FILE|-] [--until CYCLE]\n"
		  "                  [--pty] [--pty-now] [--quiet]\n"
		  "  --freq HZ        CPU clock (default 16000000)\n"
		  "  --mcu NAME       simavr core (default atmega328p)\n"
		  "  --script FILE    script lines '<cycle> pin|send|poke|end ...' ('-': stdin, batch mode)\n"
		  "  --until CYCLE    stop at that cycle (batch mode needs it or an 'end' line)\n"
		  "  --pty            real time behind a pseudo-terminal; script lines also from stdin\n"
		  "  --pty-now        with --pty: start at once instead of when the host opens the port\n"
		  "  --quiet          only errors on stderr\n"
		  "  --watch ADDR     print 'io <cycle> <addr> <value>' when the firmware accesses that I/O address\n"
		  "                   (data-space hex; reads show too, so watch a register only written, e.g.\n"
		  "                   81 for TCCR1B: when Timer1 started)\n",
		  f);
}

int main(int argc, char **argv)
{
	const char *elf = NULL, *script = NULL, *mcu = "atmega328p";
	int have_until = 0, start_now = 0;
	uint64_t until = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_val = i + 1 < argc;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--freq")) {
			uint64_t v;
			if (!has_val || parse_u64(argv[++i], 10, &v) || v == 0 || v > 100000000)
				die_usage("--freq needs a frequency in Hz (1-100000000)");
			freq = (uint32_t)v;
		} else if (!strcmp(a, "--mcu")) {
			if (!has_val)
				die_usage("--mcu needs a name");
			mcu = argv[++i];
		} else if (!strcmp(a, "--script")) {
			if (!has_val)
				die_usage("--script needs a file name (or - for stdin)");
			script = argv[++i];
		} else if (!strcmp(a, "--until")) {
			if (!has_val || parse_u64(argv[++i], 10, &until))
				die_usage("--until needs a cycle number");
			have_until = 1;
		} else if (!strcmp(a, "--pty")) {
			pty_mode = 1;
		} else if (!strcmp(a, "--pty-now")) {
			start_now = 1;
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--watch")) {
			uint64_t v;
			if (!has_val || parse_u64(argv[++i], 16, &v) || v < 0x20 || v > 0xff || nwatch == MAX_WATCH)
				die_usage("--watch needs an I/O address in hex (20-ff), at most %d of them", MAX_WATCH);
			watch[nwatch++] = (uint16_t)v;
		} else if (a[0] == '-' && a[1]) {
			usage(stderr);
			die_usage("unknown option %s", a);
		} else if (!elf) {
			elf = a;
		} else {
			die_usage("more than one ELF given (%s, %s)", elf, a);
		}
	}
	if (!elf) {
		usage(stderr);
		die_usage("no firmware ELF given");
	}
	if (pty_mode && script && !strcmp(script, "-"))
		die_usage("--pty reads live commands from stdin: give the script as a file");
	if (start_now && !pty_mode)
		die_usage("--pty-now needs --pty");
	if (access(elf, R_OK))
		die_usage("cannot read %s: %s", elf, strerror(errno));

	avr_global_logger_set(stderr_logger);
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: ppoll returns at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	static elf_firmware_t firmware; /* simavr may keep pointers into it: lives as long as avr */
	elf_firmware_t *fw = &firmware;
	if (elf_read_firmware(elf, fw))
		die_usage("cannot load firmware %s (not an AVR ELF?)", elf);
	/* pitfall 1: an ELF without a .mmcu section would run at 1 MHz */
	snprintf(fw->mmcu, sizeof(fw->mmcu), "%s", mcu);
	fw->frequency = freq;
	avr = avr_make_mcu_by_name(fw->mmcu);
	if (!avr)
		die_usage("unknown --mcu %s", mcu);
	avr_init(avr);
	/* avr_load_firmware prints on stdout, our protocol channel: send it to stderr */
	fflush(stdout);
	int saved = dup(1);
	dup2(quiet ? open("/dev/null", O_WRONLY) : 2, 1);
	avr_load_firmware(avr, fw);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	if (avr->frequency != freq)
		avr->frequency = freq;

	find_peripherals();
	configure_peripherals();
	for (int w = 0; w < nwatch; w++)
		avr_irq_register_notify(avr_iomem_getirq(avr, watch[w], NULL, AVR_IOMEM_IRQ_ALL), on_watched_write,
					(void *)(uintptr_t)watch[w]);
	core_reset = avr->reset;
	avr->reset = reset_hook;
	/* pitfall 7: the default sleep callback paces to the wall clock; batch mode runs flat out, and
	 * pty mode paces itself in its run loop (the firmware busy-loops, so it rarely sleeps) */
	avr->sleep = sleep_noop;

	if (script)
		load_script(script);
	if (have_until) {
		event_t ev = {.cycle = until, .kind = EV_END};
		add_event(&ev);
		qsort(evs, nev, sizeof(*evs), ev_cmp);
	}
	if (!pty_mode) {
		int has_end = 0;
		for (size_t i = 0; i < nev; i++)
			has_end |= evs[i].kind == EV_END;
		if (!has_end)
			die_usage("batch mode needs --until CYCLE or an 'end' line in the script");
	}
	arm_script();

	int rc = pty_mode ? run_pty(start_now) : run_batch();
	fflush(stdout);
	return rc;
}
