/* The serial link: frames out (one byte per call, so the main loop never waits) and in. */
#ifndef LINK_H
#define LINK_H

#include <stdint.h>

typedef struct {
    uint8_t type;
    uint8_t length;
    uint8_t payload[32];
} frame;

#include <avr/io.h>

void link_init(void);
/* Send the next byte (the UART can take one); `next` fills the next frame to send (returns 0
 * when there is nothing to send). */
void link_send_next(uint8_t (*next)(frame *out));
/* Take the byte that arrived; `handle` gets each command frame with a good CRC. */
void link_receive(void (*handle)(const frame *command));
extern uint8_t link_sending;
/* When the byte being handled was read (a SYNC is stamped with its last byte's time). */
extern uint32_t link_received_at;

/* The main loop calls these often: inline checks, calls only when there is work. */
static inline void link_service(uint8_t (*next)(frame *out), void (*handle)(const frame *command),
                                uint8_t pending) {
    uint8_t status = UCSR0A;
    if (status & _BV(RXC0)) {
        link_receive(handle);
    }
    if ((status & _BV(UDRE0)) && (link_sending || pending)) {
        link_send_next(next);
    }
}
uint16_t link_rx_errors(void);
/* 1 once every byte handed to the UART has left the line. */
uint8_t link_sent(void);
uint16_t crc16_update(uint16_t crc, uint8_t byte);

static inline void put16(uint8_t *at, uint16_t value) {
    at[0] = (uint8_t)value;
    at[1] = (uint8_t)(value >> 8);
}

static inline void put32(uint8_t *at, uint32_t value) {
    put16(at, (uint16_t)value);
    put16(at + 2, (uint16_t)(value >> 16));
}

static inline uint16_t get16(const uint8_t *at) {
    return (uint16_t)(at[0] | ((uint16_t)at[1] << 8));
}

#endif
