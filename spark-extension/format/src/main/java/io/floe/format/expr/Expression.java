package io.floe.format.expr;

/**
 * A node of an immutable predicate tree: constants, {@link And}, {@link Or}, {@link Not}, and
 * predicates on one column ({@link UnboundPredicate} by name, {@link BoundPredicate} by field id).
 */
public interface Expression {

  /** What a node does; predicates use the comparison operations. */
  enum Operation {
    TRUE, FALSE, NOT, AND, OR,
    IS_NULL, NOT_NULL, IS_NAN, NOT_NAN,
    LT, LT_EQ, GT, GT_EQ, EQ, NOT_EQ, IN, NOT_IN,
    STARTS_WITH, NOT_STARTS_WITH;

    /** The operation that is true exactly when this one is false (NOT is not negatable). */
    public Operation negate() {
      switch (this) {
        case TRUE: return FALSE;
        case FALSE: return TRUE;
        case AND: return OR;
        case OR: return AND;
        case IS_NULL: return NOT_NULL;
        case NOT_NULL: return IS_NULL;
        case IS_NAN: return NOT_NAN;
        case NOT_NAN: return IS_NAN;
        case LT: return GT_EQ;
        case LT_EQ: return GT;
        case GT: return LT_EQ;
        case GT_EQ: return LT;
        case EQ: return NOT_EQ;
        case NOT_EQ: return EQ;
        case IN: return NOT_IN;
        case NOT_IN: return IN;
        case STARTS_WITH: return NOT_STARTS_WITH;
        case NOT_STARTS_WITH: return STARTS_WITH;
        default: throw new IllegalArgumentException("Cannot negate operation: " + this);
      }
    }

    /** The operation to use when the operands swap sides ({@code 5 < x} is {@code x > 5}). */
    public Operation flipLR() {
      switch (this) {
        case LT: return GT;
        case LT_EQ: return GT_EQ;
        case GT: return LT;
        case GT_EQ: return LT_EQ;
        case EQ:
        case NOT_EQ:
          return this;
        default: throw new IllegalArgumentException("Cannot flip operation: " + this);
      }
    }

    /** True for predicates that take no literal (null and NaN checks). */
    public boolean isUnary() {
      return this == IS_NULL || this == NOT_NULL || this == IS_NAN || this == NOT_NAN;
    }

    /** True for predicates that take a set of literals. */
    public boolean isSet() {
      return this == IN || this == NOT_IN;
    }

    /** True for column predicates (not constants or connectives). */
    public boolean isPredicate() {
      return ordinal() >= IS_NULL.ordinal();
    }

    /** The SQL-like symbol used by {@code toString}. */
    String symbol() {
      switch (this) {
        case LT: return "<";
        case LT_EQ: return "<=";
        case GT: return ">";
        case GT_EQ: return ">=";
        case EQ: return "==";
        case NOT_EQ: return "!=";
        case IN: return "in";
        case NOT_IN: return "not in";
        case STARTS_WITH: return "startsWith";
        case NOT_STARTS_WITH: return "notStartsWith";
        case IS_NULL: return "is null";
        case NOT_NULL: return "is not null";
        case IS_NAN: return "is nan";
        case NOT_NAN: return "is not nan";
        default: return name().toLowerCase(java.util.Locale.ROOT);
      }
    }
  }

  Operation op();

  /**
   * The logical negation, pushed one level down: {@code x < 5} gives {@code x >= 5}, an and gives
   * an or of negations. Like SQL's NOT it selects no row where a value is null
   * ({@code not(x < 5)} is false for a null x), so prefer it to wrapping in {@link Not}.
   */
  Expression negate();
}
