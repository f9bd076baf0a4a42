/* read-code.c: what a function's machine code says: every RET, every exit
   by a jump to another function, jumps through registers, and the first
   instruction after the stack-check branch (where an entry probe belongs,
   facts.md point 6).

   x86-64 is decoded with zydis, arm64 with capstone: both maintained
   libraries from Debian.  Nothing here decodes instructions by hand except
   the arm64 word 0 (UDF #0, Go's padding), which capstone 4 rejects.  */

#include "config.h"

#include <errno.h>
#include <error.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>
#include <capstone/capstone.h>

#include "reader.h"

enum insn_kind
{
  INSN_OTHER,
  INSN_RET,
  INSN_JMP,        /* unconditional direct jump */
  INSN_JCC,        /* conditional direct jump */
  INSN_IJMP,       /* jump through a register or memory */
  INSN_CALL,       /* direct call */
  INSN_ICALL,      /* indirect call */
};

struct insn
{
  unsigned len;
  enum insn_kind kind;
  uint64_t target;  /* for direct jumps and calls */
};

struct disasm
{
  ZydisDecoder zydis;
  csh cs;
  cs_insn *csi;
};

/* Decode one instruction at ADDR from P (AVAIL bytes).  False when the
   bytes are not a valid instruction.  */
static bool
decode_amd64 (struct disasm *d, uint64_t addr, const uint8_t *p,
              size_t avail, struct insn *out)
{
  ZydisDecoderContext ctx;
  ZydisDecodedInstruction ins;
  if (!ZYAN_SUCCESS (ZydisDecoderDecodeInstruction (&d->zydis, &ctx, p, avail,
                                                    &ins)))
    return false;
  out->len = ins.length;
  out->kind = INSN_OTHER;
  out->target = 0;
  enum insn_kind direct, indirect;
  switch (ins.meta.category)
    {
    case ZYDIS_CATEGORY_RET:
      /* Near returns only: far ones (CA, CB) are never Go code, but their
         bytes appear in data that assembly places after a JMP.  */
      if (ins.mnemonic == ZYDIS_MNEMONIC_RET && ins.opcode != 0xca
          && ins.opcode != 0xcb)
        out->kind = INSN_RET;
      return true;
    case ZYDIS_CATEGORY_UNCOND_BR:
      direct = INSN_JMP;
      indirect = INSN_IJMP;
      break;
    case ZYDIS_CATEGORY_COND_BR:
      direct = INSN_JCC;
      indirect = INSN_IJMP;
      break;
    case ZYDIS_CATEGORY_CALL:
      direct = INSN_CALL;
      indirect = INSN_ICALL;
      break;
    default:
      return true;
    }
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  if (!ZYAN_SUCCESS (ZydisDecoderDecodeOperands (&d->zydis, &ctx, &ins, ops,
                                                 ins.operand_count)))
    return false;
  ZyanU64 target;
  if (ins.operand_count > 0 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE
      && ops[0].imm.is_relative
      && ZYAN_SUCCESS (ZydisCalcAbsoluteAddress (&ins, &ops[0], addr,
                                                 &target)))
    {
      out->kind = direct;
      out->target = target;
    }
  else
    out->kind = indirect;
  return true;
}

static bool
decode_arm64 (struct disasm *d, uint64_t addr, const uint8_t *p,
              size_t avail, struct insn *out)
{
  if (avail < 4)
    return false;
  out->len = 4;
  out->kind = INSN_OTHER;
  out->target = 0;
  if (p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 0)
    return true;                /* UDF #0: padding between functions */
  const uint8_t *code = p;
  size_t size = 4;
  uint64_t a = addr;
  if (!cs_disasm_iter (d->cs, &code, &size, &a, d->csi))
    return false;
  const cs_insn *i = d->csi;
  const cs_arm64 *x = &i->detail->arm64;
  int64_t imm = 0;
  bool has_imm = false;
  for (int k = x->op_count - 1; k >= 0; k--)
    if (x->operands[k].type == ARM64_OP_IMM)
      {
        imm = x->operands[k].imm;
        has_imm = true;
        break;
      }
  switch (i->id)
    {
    case ARM64_INS_RET:
      out->kind = INSN_RET;
      break;
    case ARM64_INS_BR:
      out->kind = INSN_IJMP;
      break;
    case ARM64_INS_BLR:
      out->kind = INSN_ICALL;
      break;
    case ARM64_INS_B:
      out->kind = x->cc != ARM64_CC_INVALID && x->cc != ARM64_CC_AL
        ? INSN_JCC : INSN_JMP;
      break;
    case ARM64_INS_CBZ:
    case ARM64_INS_CBNZ:
    case ARM64_INS_TBZ:
    case ARM64_INS_TBNZ:
      out->kind = INSN_JCC;
      break;
    case ARM64_INS_BL:
      out->kind = INSN_CALL;
      break;
    default:
      return true;
    }
  if (out->kind == INSN_JMP || out->kind == INSN_JCC || out->kind == INSN_CALL)
    {
      if (!has_imm)
        return false;
      out->target = (uint64_t) imm;
    }
  return true;
}

static bool
decode (const struct go_bin *b, uint64_t addr, const uint8_t *p, size_t avail,
        struct insn *out)
{
  struct disasm *d = b->io->disasm;
  return b->arch == GO_ARCH_AMD64 ? decode_amd64 (d, addr, p, avail, out)
    : decode_arm64 (d, addr, p, avail, out);
}

int
gobin_code_init (struct go_bin *b)
{
  struct disasm *d = calloc (1, sizeof *d);
  if (d == NULL)
    {
      error (0, errno, "calloc");
      return EXIT_ERROR;
    }
  b->io->disasm = d;
  if (b->arch == GO_ARCH_AMD64)
    {
      if (!ZYAN_SUCCESS (ZydisDecoderInit (&d->zydis,
                                           ZYDIS_MACHINE_MODE_LONG_64,
                                           ZYDIS_STACK_WIDTH_64)))
        {
          error (0, 0, "ZydisDecoderInit failed");
          return EXIT_ERROR;
        }
      return EXIT_OK;
    }
  cs_err err = cs_open (CS_ARCH_ARM64, CS_MODE_ARM, &d->cs);
  if (err != CS_ERR_OK)
    {
      error (0, 0, "cs_open: %s", cs_strerror (err));
      return EXIT_ERROR;
    }
  cs_option (d->cs, CS_OPT_DETAIL, CS_OPT_ON);
  d->csi = cs_malloc (d->cs);
  if (d->csi == NULL)
    {
      error (0, 0, "cs_malloc: %s", cs_strerror (cs_errno (d->cs)));
      return EXIT_ERROR;
    }
  return EXIT_OK;
}

void
gobin_code_fini (struct go_bin *b)
{
  for (size_t i = 0; b->funcs != NULL && i < b->nfuncs; i++)
    {
      addr_list_free (&b->funcs[i].code.rets);
      addr_list_free (&b->funcs[i].code.tails);
      addr_list_free (&b->funcs[i].code.indirect);
      addr_list_free (&b->funcs[i].code.undecoded);
    }
  struct disasm *d = b->io->disasm;
  if (d == NULL)
    return;
  if (d->csi != NULL)
    cs_free (d->csi, 1);
  if (d->cs != 0)
    cs_close (&d->cs);
  free (d);
  b->io->disasm = NULL;
}

/* Does the code at T (inside F) call runtime.morestack*, within the few
   instructions that spill the argument registers before that call?  */
static bool
is_morestack_block (const struct go_bin *b, const struct go_func *f,
                    const uint8_t *code, uint64_t t)
{
  uint64_t pc = t;
  for (int n = 0; n < 32 && pc < f->end; n++)
    {
      struct insn in;
      if (!decode (b, pc, code + (pc - f->entry), f->end - pc, &in))
        return false;
      if (in.kind == INSN_CALL)
        {
          const struct go_func *g = gobin_func_at (b, in.target);
          return g != NULL && in.target == g->entry
            && strncmp (g->name, "runtime.morestack", 17) == 0;
        }
      if (in.kind != INSN_OTHER)
        return false;
      pc += in.len;
    }
  return false;
}

/* The body starts after the last conditional branch of the prologue that
   goes to the morestack block; large frames have two such branches.  */
static uint64_t
find_body (const struct go_bin *b, const struct go_func *f,
           const uint8_t *code)
{
  uint64_t pc = f->entry, body = f->entry;
  for (int n = 0; n < 12 && pc < f->end; n++)
    {
      struct insn in;
      if (!decode (b, pc, code + (pc - f->entry), f->end - pc, &in))
        break;
      uint64_t next = pc + in.len;
      if (in.kind == INSN_JCC && in.target > next && in.target < f->end
          && is_morestack_block (b, f, code, in.target))
        body = next;
      else if (in.kind != INSN_OTHER && in.kind != INSN_JCC)
        break;
      pc = next;
    }
  return body;
}

int
gobin_analyze (struct go_bin *b, const struct go_func *cf)
{
  /* The analysis is kept in the function's record of B's own table.  */
  struct go_func *f = &b->funcs[cf - b->funcs];
  struct go_code *c = &f->code;
  if (c->done)
    return EXIT_OK;
  const uint8_t *code = gobin_vaddr (b, f->entry, f->end - f->entry, NULL);
  if (code == NULL)
    {
      error (0, 0, "%s: code of %s (%#" PRIx64 "-%#" PRIx64 ") is not in "
             "the file", b->path, f->name, f->entry, f->end);
      return EXIT_BADINPUT;
    }
  uint64_t pc = f->entry;
  unsigned step = b->arch == GO_ARCH_ARM64 ? 4 : 1;
  while (pc < f->end)
    {
      struct insn in;
      const uint8_t *p = code + (pc - f->entry);
      if (!decode (b, pc, p, f->end - pc, &in))
        {
          if (addr_list_push (&c->undecoded, pc) != 0)
            return EXIT_ERROR;
          pc += step;
          continue;
        }
      struct addr_list *l = NULL;
      switch (in.kind)
        {
        case INSN_RET:
          l = &c->rets;
          break;
        case INSN_JMP:
        case INSN_JCC:
          if (in.target < f->entry || in.target >= f->end)
            l = &c->tails;
          break;
        case INSN_IJMP:
          l = &c->indirect;
          break;
        default:
          break;
        }
      if (l != NULL && addr_list_push (l, pc) != 0)
        return EXIT_ERROR;
      pc += in.len;
    }
  c->body = find_body (b, f, code);
  c->done = true;
  return EXIT_OK;
}
