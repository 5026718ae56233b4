/*
 * Framing over the UART (PROTOCOL.md): A5, type, length, payload, CRC-16/CCITT-FALSE.
 *
 * Both directions work a byte at a time from the main loop, computing the CRC as the bytes go,
 * so no call takes long enough for the receiver to overrun at 1 Mbaud (a byte every 10 us).
 */
#include <avr/io.h>
#include <avr/pgmspace.h>

#include "board.h"
#include "link.h"

/* CRC-16/CCITT-FALSE, four bits at a time. */
static const uint16_t crc_nibbles[16] PROGMEM = {
    0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50A5, 0x60C6, 0x70E7,
    0x8108, 0x9129, 0xA14A, 0xB16B, 0xC18C, 0xD1AD, 0xE1CE, 0xF1EF,
};

uint16_t crc16_update(uint16_t crc, uint8_t byte) {
    crc = (uint16_t)(crc << 4) ^ pgm_read_word(&crc_nibbles[(uint8_t)((crc >> 12) ^ (byte >> 4))]);
    crc = (uint16_t)(crc << 4) ^ pgm_read_word(&crc_nibbles[(uint8_t)((crc >> 12) ^ (byte & 0x0F))]);
    return crc;
}

void link_init(void) {
    UCSR0A = _BV(U2X0); /* before the baud rate: 1 Mbaud is exact with U2X */
    UBRR0H = 0;
    UBRR0L = (uint8_t)(F_CPU / (8 * BAUD) - 1);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0);
}

/* -- out ---------------------------------------------------------------------------------- */

static frame out;
uint8_t link_sending;
static uint8_t out_position; /* 0: sync byte, 1: type, 2: length, 3..: payload, then CRC */
static uint16_t out_crc;

static void send(uint8_t byte) {
    UCSR0A = _BV(U2X0) | _BV(TXC0); /* clears "transmit complete" for link_sent */
    UDR0 = byte;
}

uint8_t link_sent(void) {
    return !link_sending && (UCSR0A & _BV(TXC0));
}

void link_send_next(uint8_t (*next)(frame *out)) {
    if (!link_sending) {
        if (!next(&out)) {
            return;
        }
        link_sending = 1;
        out_position = 0;
        out_crc = 0xFFFF;
    }
    uint8_t p = out_position++;
    uint8_t byte;
    if (p == 0) {
        byte = FRAME_SYNC;
    } else if (p == 1) {
        byte = out.type;
    } else if (p == 2) {
        byte = out.length;
    } else if (p < 3 + out.length) {
        byte = out.payload[p - 3];
    } else if (p == 3 + out.length) {
        send((uint8_t)out_crc);
        return;
    } else {
        send((uint8_t)(out_crc >> 8));
        link_sending = 0;
        return;
    }
    if (p) {
        out_crc = crc16_update(out_crc, byte);
    }
    send(byte);
}

/* -- in ----------------------------------------------------------------------------------- */

/* The bytes of the frame being read, from its A5, so a bad frame can be searched for the next A5;
 * the CRC is kept as they come, so a frame's last byte costs no more than the others. */
static uint8_t in_bytes[3 + MAX_PAYLOAD + 2];
static uint8_t in_count;
static uint16_t in_crc;
static uint16_t rx_errors;
uint32_t link_received_at;

uint16_t link_rx_errors(void) {
    return rx_errors;
}

/* 1 when in_bytes holds a whole good frame, 0 while it needs more, -1 when it is bad. */
static int8_t frame_state(void) {
    if (in_count < 3) {
        return 0;
    }
    uint8_t length = in_bytes[2];
    if (length > MAX_PAYLOAD) {
        return -1;
    }
    if (in_count < 5 + length) {
        return 0;
    }
    return get16(&in_bytes[3 + length]) == in_crc ? 1 : -1;
}

static void add(uint8_t byte) {
    uint8_t at = in_count++;
    in_bytes[at] = byte;
    if (at == 0) {
        in_crc = 0xFFFF;
    } else if (at < 3 || at < 3 + in_bytes[2]) {
        in_crc = crc16_update(in_crc, byte);
    }
}

/* Take one byte; 1 when it ended a frame, good or bad (a bad one leaves its bytes after the A5 to
 * be read again). */
static uint8_t take_one(uint8_t byte, void (*handle)(const frame *command)) {
    if (in_count == 0 && byte != FRAME_SYNC) {
        return 0; /* between frames: not a frame start, skip it */
    }
    add(byte);
    int8_t state = frame_state();
    if (state > 0) {
        frame command;
        command.type = in_bytes[1];
        command.length = in_bytes[2];
        for (uint8_t i = 0; i < command.length; i++) {
            command.payload[i] = in_bytes[3 + i];
        }
        in_count = 0;
        handle(&command);
    } else if (state < 0) {
        count_up(&rx_errors);
    }
    return state != 0;
}

static void take(uint8_t byte, void (*handle)(const frame *command)) {
    uint8_t again[sizeof in_bytes];
    uint8_t count = 0;
    if (take_one(byte, handle) && in_count) {
        /* A bad frame: read on from the next A5 after its own. */
        for (uint8_t i = 1; i < in_count; i++) {
            again[count++] = in_bytes[i];
        }
        in_count = 0;
    }
    for (uint8_t i = 0; i < count; i++) {
        if (take_one(again[i], handle) && in_count) {
            /* Bad again: its bytes after the A5 go round once more. */
            uint8_t kept = 0;
            for (uint8_t j = 1; j < in_count; j++) {
                again[kept++] = in_bytes[j];
            }
            for (uint8_t j = i + 1; j < count; j++) {
                again[kept++] = again[j];
            }
            in_count = 0;
            count = kept;
            i = (uint8_t)-1;
        }
    }
}

void link_receive(void (*handle)(const frame *command)) {
    /* Everything the UART holds (up to two bytes): at 1 Mbaud a byte comes every 10 us. */
    uint8_t status;
    while ((status = UCSR0A) & _BV(RXC0)) {
        uint8_t byte = UDR0;
        link_received_at = clock_now();
        if (status & (_BV(FE0) | _BV(DOR0))) {
            count_up(&rx_errors);
        }
        take(byte, handle);
    }
}
