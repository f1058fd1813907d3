//! Comparisons minijinja works out when it compiles. An expression of literals (`1 < 'a'`,
//! `[1, 'a'] > [1, 2]`, `not ('5' <= 3)`) becomes its value in the bytecode, so the guard of
//! the comparison instructions ([`super::compile`]) never runs for it, and minijinja ordered
//! across kinds: `{{ 1 < 'a' }}` rendered `true`. The syntax tree is read before it is compiled,
//! and each ordering comparison whose sides are all literals is checked as the guard checks one
//! (in a chain, up to the first comparison that is false, as it runs), and so is each `==`,
//! `!=` and `in` of literals (`'500' == 500`).

use minijinja::Error;
use minijinja::machinery::ast::{BinOpKind, CallArg, CompareOpKind, Expr, Stmt};

use super::order::{compare, contains, equal};

/// Checks the comparisons of literals in `stmt` and everything in it.
pub(crate) fn check_stmt(stmt: &Stmt<'_>) -> Result<(), Error> {
    match stmt {
        Stmt::Template(t) => stmts(&t.children),
        Stmt::EmitExpr(e) => check_expr(&e.expr),
        Stmt::EmitRaw(_) => Ok(()),
        Stmt::ForLoop(f) => {
            exprs([&f.target, &f.iter])?;
            f.filter_expr.as_ref().map_or(Ok(()), check_expr)?;
            stmts(&f.body)?;
            stmts(&f.else_body)
        }
        Stmt::IfCond(i) => {
            check_expr(&i.expr)?;
            stmts(&i.true_body)?;
            stmts(&i.false_body)
        }
        Stmt::WithBlock(w) => {
            for (target, value) in &w.assignments {
                exprs([target, value])?;
            }
            stmts(&w.body)
        }
        Stmt::Set(s) => exprs([&s.target, &s.expr]),
        Stmt::SetBlock(s) => {
            check_expr(&s.target)?;
            s.filter.as_ref().map_or(Ok(()), check_expr)?;
            stmts(&s.body)
        }
        Stmt::AutoEscape(a) => {
            check_expr(&a.enabled)?;
            stmts(&a.body)
        }
        Stmt::FilterBlock(f) => {
            check_expr(&f.filter)?;
            stmts(&f.body)
        }
        Stmt::Block(b) => stmts(&b.body),
        Stmt::Import(i) => exprs([&i.expr, &i.name]),
        Stmt::FromImport(f) => {
            check_expr(&f.expr)?;
            for (name, alias) in &f.names {
                check_expr(name)?;
                alias.as_ref().map_or(Ok(()), check_expr)?;
            }
            Ok(())
        }
        Stmt::Extends(e) => check_expr(&e.name),
        Stmt::Include(i) => check_expr(&i.name),
        Stmt::Macro(m) => {
            exprs(&m.args)?;
            exprs(&m.defaults)?;
            stmts(&m.body)
        }
        Stmt::CallBlock(c) => {
            check_expr(&c.call.expr)?;
            args(&c.call.args)?;
            exprs(&c.macro_decl.args)?;
            exprs(&c.macro_decl.defaults)?;
            stmts(&c.macro_decl.body)
        }
        Stmt::Do(d) => {
            check_expr(&d.call.expr)?;
            args(&d.call.args)
        }
    }
}

/// Checks the comparisons of literals in `expr` and everything in it.
pub(crate) fn check_expr(expr: &Expr<'_>) -> Result<(), Error> {
    match expr {
        Expr::Var(_) | Expr::Const(_) => Ok(()),
        Expr::Slice(s) => {
            check_expr(&s.expr)?;
            exprs([&s.start, &s.stop, &s.step].into_iter().flatten())
        }
        Expr::UnaryOp(u) => check_expr(&u.expr),
        Expr::BinOp(b) => {
            let op = match b.op {
                BinOpKind::Lt => Some("<"),
                BinOpKind::Lte => Some("<="),
                BinOpKind::Gt => Some(">"),
                BinOpKind::Gte => Some(">="),
                BinOpKind::Eq => Some("=="),
                BinOpKind::Ne => Some("!="),
                BinOpKind::In => Some("in"),
                _ => None,
            };
            if let (Some(op), Some(left), Some(right)) = (op, b.left.as_const(), b.right.as_const())
            {
                match op {
                    "==" | "!=" => equal(&left, op, &right)?,
                    "in" => contains(&left, &right)?,
                    _ => compare(&left, op, &right)?,
                };
            }
            exprs([&b.left, &b.right])
        }
        Expr::Compare(c) => {
            chain(&c.expr, c.ops.iter().map(|o| (&o.op, &o.expr)))?;
            check_expr(&c.expr)?;
            exprs(c.ops.iter().map(|o| &o.expr))
        }
        Expr::IfExpr(i) => {
            exprs([&i.test_expr, &i.true_expr])?;
            i.false_expr.as_ref().map_or(Ok(()), check_expr)
        }
        Expr::Filter(f) => {
            f.expr.as_ref().map_or(Ok(()), check_expr)?;
            args(&f.args)
        }
        Expr::Test(t) => {
            check_expr(&t.expr)?;
            args(&t.args)
        }
        Expr::GetAttr(g) => check_expr(&g.expr),
        Expr::GetItem(g) => exprs([&g.expr, &g.subscript_expr]),
        Expr::Call(c) => {
            check_expr(&c.expr)?;
            args(&c.args)
        }
        Expr::List(l) => exprs(&l.items),
        Expr::Map(m) => {
            exprs(&m.keys)?;
            exprs(&m.values)
        }
    }
}

/// A chain of comparisons (`a < b <= c`) whose sides are all literals, checked as it runs: each
/// ordering comparison in turn, until one is false (the rest is not evaluated). A chain with a
/// side that is not a literal is compiled, and guarded when it runs.
fn chain<'a, 'b: 'a>(
    first: &'a Expr<'b>,
    ops: impl Iterator<Item = (&'a CompareOpKind, &'a Expr<'b>)> + Clone,
) -> Result<(), Error> {
    let Some(mut left) = first.as_const() else {
        return Ok(());
    };
    let Some(sides) = ops
        .map(|(op, e)| e.as_const().map(|v| (op, v)))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(());
    };
    for (op, right) in sides {
        let holds = match op {
            CompareOpKind::Lt => compare(&left, "<", &right)?,
            CompareOpKind::Lte => compare(&left, "<=", &right)?,
            CompareOpKind::Gt => compare(&left, ">", &right)?,
            CompareOpKind::Gte => compare(&left, ">=", &right)?,
            CompareOpKind::Eq => equal(&left, "==", &right)?,
            CompareOpKind::Ne => equal(&left, "!=", &right)?,
            CompareOpKind::In => contains(&left, &right)?,
            CompareOpKind::NotIn => !contains(&left, &right)?,
        };
        if !holds {
            break;
        }
        left = right;
    }
    Ok(())
}

fn stmts(body: &[Stmt<'_>]) -> Result<(), Error> {
    body.iter().try_for_each(check_stmt)
}

fn exprs<'a, 'b: 'a>(all: impl IntoIterator<Item = &'a Expr<'b>>) -> Result<(), Error> {
    all.into_iter().try_for_each(check_expr)
}

fn args(all: &[CallArg<'_>]) -> Result<(), Error> {
    all.iter().try_for_each(|a| match a {
        CallArg::Pos(e) | CallArg::Kwarg(_, e) | CallArg::PosSplat(e) | CallArg::KwargSplat(e) => {
            check_expr(e)
        }
    })
}
