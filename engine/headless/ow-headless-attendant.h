/* ow-headless-attendant.h: who answers during `openworker run`.
 *
 * At a terminal, approvals are asked there (yes once, yes for this session,
 * no), and so are questions and folder requests unless --auto-answer was
 * given. With no terminal (a pipe, a CI job), every approval that needs a
 * person is refused and recorded, questions get the fixed-rule answer and
 * folder requests are declined with guidance — nothing ever waits. Every
 * answer given on the absent person's behalf is reported through
 * @on_answer for answers.json.
 */
#pragma once

#include "policy/ow-attendant.h"

G_BEGIN_DECLS

typedef void (*OwAnswerFunc) (JsonObject *answer, gpointer user_data);

#define OW_TYPE_HEADLESS_ATTENDANT (ow_headless_attendant_get_type ())
G_DECLARE_FINAL_TYPE (OwHeadlessAttendant, ow_headless_attendant, OW, HEADLESS_ATTENDANT, GObject)

/* @tty_fd: an open terminal (not closed by the attendant), or -1 when there
 * is none. @auto_answer: questions and folder requests are answered by
 * rule even at a terminal. @dangerous: the run is in
 * dangerously-bypass-approvals (changes the folder guidance). */
OwAttendant *ow_headless_attendant_new (int          tty_fd,
                                        gboolean     auto_answer,
                                        gboolean     dangerous,
                                        OwAnswerFunc on_answer,
                                        gpointer     answer_data);

G_END_DECLS
