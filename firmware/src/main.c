/*
 * The buzzer box: eight buttons timed to within a microsecond, lamps, a beeper, and a serial
 * line to the companion (PROTOCOL.md).
 *
 * The pin-change interrupt (sampler.S) is the only interrupt: it stores looks of the buttons
 * and Timer1 and returns. Everything else is this loop, which never waits: it turns looks
 * into events, confirms them, answers commands, and sends one byte at a time.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>

#include "board.h"
#include "buttons.h"
#include "link.h"
#include "outputs.h"
#include "sampler.h"

#ifdef HOBBY_SAMPLER
void hobby_init(void);
#endif

/* Replies waiting for the line, sent in this order of priority. */
static uint8_t tx_wanted = 1; /* something besides events may be waiting to be sent */
static uint8_t hello_due = 1;
static uint8_t heartbeat_due;
static uint8_t reset_due;
static uint8_t sync_due;
static uint32_t sync_token, sync_ticks;
#define REPLIES 4
static uint8_t reply_type[REPLIES], reply_command[REPLIES], reply_seq[REPLIES], reply_reason[REPLIES];
static uint8_t replies, reply_first;
static uint8_t reset_cause __attribute__((section(".noinit"))); /* set before .bss is cleared */
static uint32_t now;

/* The watchdog stays on after a watchdog reset: turn it off before it fires again. */
void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void) {
    reset_cause = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

static void reply(uint8_t type, const frame *command, uint8_t reason) {
    if (replies == REPLIES) {
        return; /* the host resends what is not answered */
    }
    uint8_t at = (uint8_t)((reply_first + replies) % REPLIES);
    reply_type[at] = type;
    reply_command[at] = command->type;
    reply_seq[at] = command->length ? command->payload[0] : 0;
    reply_reason[at] = reason;
    replies++;
    tx_wanted = 1;
}

/* The link hands over only commands of a type the board knows, with that type's length (a frame
 * of another type or length is refused at its header, see link.c). */
static void handle(const frame *c) {
    const uint8_t *p = c->payload;
    switch (c->type) {
    case C_SYNC:
        /* The time the request's last byte was read (this loop reads bytes as they come). */
        sync_token = (uint32_t)get16(p) | ((uint32_t)get16(p + 2) << 16);
        sync_ticks = link_received_at;
        sync_due = 1;
        tx_wanted = 1;
        return;
    case C_HELLO_REQUEST:
        hello_due = 1;
        tx_wanted = 1;
        return;
    case C_LAMPS:
        outputs_lamps(p[1], p[2]);
        break;
    case C_BEEP:
        if (!outputs_beep(get16(p + 1), get16(p + 3), now)) {
            reply(T_NAK, c, NAK_VALUE);
            return;
        }
        break;
    case C_DEBOUNCE: {
        uint16_t confirm_us = get16(p + 1), mask_ms = get16(p + 3);
        if (confirm_us < 100 || confirm_us > 60000 || mask_ms > 1000) {
            reply(T_NAK, c, NAK_VALUE);
            return;
        }
        buttons_set_debounce((uint32_t)confirm_us * TICKS_PER_US, (uint32_t)mask_ms * TICKS_PER_MS);
        break;
    }
    case C_RESET:
        reset_due = 1;
        tx_wanted = 1;
        break;
    }
    reply(T_ACK, c, 0);
}

static uint8_t next_frame(frame *f) {
    if (sync_due) {
        sync_due = 0;
        f->type = T_SYNC_REPLY;
        f->length = 8;
        put32(f->payload, sync_token);
        put32(f->payload + 4, sync_ticks);
        return 1;
    }
    if (replies) {
        uint8_t at = reply_first;
        reply_first = (uint8_t)((reply_first + 1) % REPLIES);
        replies--;
        f->type = reply_type[at];
        f->payload[0] = reply_command[at];
        f->payload[1] = reply_seq[at];
        f->payload[2] = reply_reason[at];
        f->length = f->type == T_NAK ? 3 : 2;
        return 1;
    }
    if (hello_due) {
        hello_due = 0;
        f->type = T_HELLO;
        f->length = 12;
        f->payload[0] = PROTOCOL_VERSION;
        f->payload[1] = FIRMWARE_MAJOR;
        f->payload[2] = FIRMWARE_MINOR;
        f->payload[3] = FIRMWARE_PATCH;
        put32(f->payload + 4, TICK_HZ);
        f->payload[8] = BUTTON_COUNT;
        f->payload[9] = LAMP_COUNT;
        f->payload[10] = reset_cause;
        f->payload[11] = FIRMWARE_VARIANT;
        return 1;
    }
    button_event e;
    if (buttons_peek(&e)) {
        buttons_pop();
        f->type = T_EVENT;
        f->length = 8;
        put16(f->payload, e.seq);
        f->payload[2] = e.button;
        f->payload[3] = e.edge;
        put32(f->payload + 4, e.ticks);
        return 1;
    }
    if (heartbeat_due) {
        heartbeat_due = 0;
        f->type = T_HEARTBEAT;
        f->length = 13;
        put32(f->payload, now);
        put16(f->payload + 4, buttons_next_seq());
        put16(f->payload + 6, buttons_dropped());
        put16(f->payload + 8, buttons_noise());
        put16(f->payload + 10, link_rx_errors());
        f->payload[12] = buttons_held();
        return 1;
    }
    if (reset_due && link_sent()) {
        /* Everything before (the ACK) has left the line: reset through the watchdog. */
        wdt_enable(WDTO_15MS);
        for (;;) {
        }
    }
    tx_wanted = reset_due;
    return 0;
}

int main(void) {
    clock_init();
    outputs_init();
    /* Pull-ups on the buttons, then give them a moment to charge the cable before the first read. */
    PORTD |= BUTTON_MASK_D;
    PORTC |= BUTTON_MASK_C;
    EICRA = _BV(ISC10) | _BV(ISC00); /* INT0/INT1 (D2/D3) unused: edge mode, never level-polled */
    uint32_t settle = clock_now();
    while (clock_now() - settle < 100UL * TICKS_PER_US) {
    }
    uint8_t state = sampler_read();
    buttons_init(state);
    sampler_init(state);
#ifdef HOBBY_SAMPLER
    hobby_init();
#endif
    sei();
    link_init(next_frame); /* last: the receiver holds three bytes, and nothing reads them before the loop */

    uint32_t heartbeat_at = clock_now();
    uint8_t slow_at = TCNT0;
    for (;;) {
        /* The pass is short when idle (the serial line is served twice, a byte every 10 us);
         * time-driven work runs every 64 us, paced by Timer0 (4 us steps, read in one go). */
        link_service(next_frame, handle, tx_wanted | buttons_queued());
        if (buttons_fresh()) {
            buttons_take();
        }
        link_service(next_frame, handle, tx_wanted | buttons_queued());
        uint8_t t0 = TCNT0;
        if ((uint8_t)(t0 - slow_at) >= 16) {
            slow_at += 16; /* a fixed 64 us grid, however late this pass came */
            now = clock_now();
            if (buttons_waiting) {
                buttons_take();
                link_service(next_frame, handle, tx_wanted | buttons_queued());
                buttons_confirm();
                link_service(next_frame, handle, tx_wanted | buttons_queued());
            }
            if (outputs_busy) {
                outputs_update(now);
            }
            if (now - heartbeat_at >= HEARTBEAT_TICKS) {
                heartbeat_at += HEARTBEAT_TICKS;
                heartbeat_due = 1;
                tx_wanted = 1;
            }
        }
    }
}
